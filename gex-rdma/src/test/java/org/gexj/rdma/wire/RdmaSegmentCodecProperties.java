package org.gexj.rdma.wire;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class RdmaSegmentCodecProperties {
    private static Gen<Integer> ranks() {
        return integers().between(0, 3).mix(integers().between(0, Integer.MAX_VALUE));
    }

    private static Gen<byte[]> bytes(int max) {
        return Generate.byteArrays(integers().between(0, max), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE,
            (byte) 0));
    }

    /** The rejection of {@code rank}'s blob names that rank, as a whole number (rank 1 is not rank 12). */
    private static void assertNamesRank(IllegalArgumentException e, int rank) {
        assertTrue(Pattern.compile("\\brank " + rank + "\\b").matcher(e.getMessage()).find(),
            "'" + e.getMessage() + "' does not name rank " + rank);
    }

    @Test
    void segmentsRoundTrip() {
        qt().withExamples(2000).forAll(longs().all(), longs().all(), longs().all(), ranks())
            .checkAssert((base, size, key, rank) -> {
                final byte[] blob = RdmaSegmentCodec.encode(new RdmaSegmentCodec.Segment(base, size, key));
                assertEquals(RdmaSegmentCodec.LENGTH, blob.length);
                assertEquals(new RdmaSegmentCodec.Segment(base, size, key), RdmaSegmentCodec.decode(blob, rank));
            });
    }

    @Test
    void foreignVersionsAreRejectedNamingTheRank() {
        qt().withExamples(500).forAll(integers().between(Byte.MIN_VALUE, Byte.MAX_VALUE)
            .assuming(v -> v != RdmaSegmentCodec.VERSION), ranks()).checkAssert((version, rank) -> {
                final byte[] segment = RdmaSegmentCodec.encode(new RdmaSegmentCodec.Segment(1, 2, 3));
                segment[0] = (byte) (int) version;
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RdmaSegmentCodec.decode(segment, rank));
                assertNamesRank(e, rank);
                assertTrue(e.getMessage().contains("version " + version), e.getMessage());
            });
    }

    @Test
    void segmentBlobsOfAnyOtherLengthAreRejectedNamingTheRank() {
        qt().withExamples(1000).forAll(bytes(64).assuming(b -> b.length != RdmaSegmentCodec.LENGTH), ranks())
            .checkAssert((blob, rank) -> {
                if (blob.length > 0) {
                    blob[0] = RdmaSegmentCodec.VERSION; // only the length is wrong
                }
                assertNamesRank(assertThrows(IllegalArgumentException.class,
                    () -> RdmaSegmentCodec.decode(blob, rank)), rank);
            });
    }
}
