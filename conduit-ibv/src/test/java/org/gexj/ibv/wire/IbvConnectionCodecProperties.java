package org.gexj.ibv.wire;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.Arrays;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

/** The connection blob: any endpoint round-trips; a blob for another job size, version or truncated names its rank. */
class IbvConnectionCodecProperties {
    private static Gen<IbvConnectionCodec.Endpoint> endpoints() {
        final Gen<byte[]> gids = Generate.byteArrays(integers().between(16, 16),
            Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
        final Gen<int[]> qpns = Generate.intArrays(integers().between(1, 64), integers().between(0, 0xFFFFFF));
        return integers().between(0, 0xFFFF).zip(integers().between(0, 255), gids, integers().between(0, 0xFFFFFF),
            qpns, (lid, mtu, gid, psn, q) -> new IbvConnectionCodec.Endpoint(lid, mtu, gid, psn, q));
    }

    private static void assertNamesRank(IllegalArgumentException e, int rank) {
        assertTrue(Pattern.compile("\\brank " + rank + "\\b").matcher(e.getMessage()).find(),
            "'" + e.getMessage() + "' does not name rank " + rank);
    }

    @Test
    void endpointsRoundTrip() {
        qt().withExamples(2000).forAll(endpoints(), integers().between(0, 1000)).checkAssert((e, rank) -> {
            final byte[] blob = IbvConnectionCodec.encode(e);
            assertEquals(IbvConnectionCodec.HEADER + 4 * e.qpns().length, blob.length);
            final IbvConnectionCodec.Endpoint back = IbvConnectionCodec.decode(blob, rank, e.qpns().length);
            assertEquals(e, back);
            assertEquals(e.hashCode(), back.hashCode());
        });
    }

    @Test
    void aBlobForAnotherSizeTruncatedOrOfAnotherVersionNamesItsRank() {
        qt().withExamples(500).forAll(endpoints(), integers().between(0, 1000)).checkAssert((e, rank) -> {
            final byte[] blob = IbvConnectionCodec.encode(e);
            final int size = e.qpns().length;
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decode(blob, rank, size + 1)), rank);
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decode(Arrays.copyOf(blob, blob.length - 1), rank, size)), rank);
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decode(Arrays.copyOf(blob, IbvConnectionCodec.HEADER - 5), rank, size)),
                rank);
            final byte[] other = blob.clone();
            other[0] = 9;
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decode(other, rank, size)), rank);
        });
    }

    @Test
    void badFieldsAreNamed() {
        assertEquals("GID of 15 bytes: a GID has 16", assertThrows(IllegalArgumentException.class,
            () -> new IbvConnectionCodec.Endpoint(0, 3, new byte[15], 0, new int[1])).getMessage());
        assertEquals("PSN 16777216 outside [0, 16777215] (24 bits)", assertThrows(IllegalArgumentException.class,
            () -> new IbvConnectionCodec.Endpoint(0, 3, new byte[16], 1 << 24, new int[1])).getMessage());
    }

    private static Gen<IbvConnectionCodec.Address> addresses() {
        final Gen<byte[]> gids = Generate.byteArrays(integers().between(16, 16),
            Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
        return integers().between(0, 0xFFFF).zip(integers().between(0, 255), gids, integers().between(0, 0xFFFFFF),
            integers().all(), (lid, mtu, gid, qpn, tag) -> new IbvConnectionCodec.Address(lid, mtu, gid, qpn, tag));
    }

    @Test
    void addressesRoundTripAndABadOneNamesItsRank() {
        qt().withExamples(1000).forAll(addresses(), integers().between(0, 1000)).checkAssert((a, rank) -> {
            final byte[] blob = IbvConnectionCodec.encode(a);
            assertEquals(IbvConnectionCodec.ADDRESS_LENGTH, blob.length);
            assertEquals(a, IbvConnectionCodec.decodeAddress(blob, rank));
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decodeAddress(Arrays.copyOf(blob, blob.length - 1), rank)), rank);
            assertNamesRank(assertThrows(IllegalArgumentException.class,
                () -> IbvConnectionCodec.decodeAddress(new byte[0], rank)), rank);
        });
    }

    @Test
    void ranksStartedWithDifferentConnectModesSaySo() {
        final byte[] address = IbvConnectionCodec.encode(new IbvConnectionCodec.Address(0, 3, new byte[16], 7, 1));
        final byte[] endpoint = IbvConnectionCodec.encode(new IbvConnectionCodec.Endpoint(0, 3, new byte[16], 0,
            new int[2]));
        assertEquals("rank 1 connects on demand (GEX_IBV_CONNECT=ondemand) and this rank statically"
            + " (GEX_IBV_CONNECT=static): start every rank with the same GEX_IBV_CONNECT",
            assertThrows(IllegalArgumentException.class, () -> IbvConnectionCodec.decode(address, 1, 2)).getMessage());
        assertEquals("rank 0 connects statically (GEX_IBV_CONNECT=static) and this rank on demand"
            + " (GEX_IBV_CONNECT=ondemand): start every rank with the same GEX_IBV_CONNECT",
            assertThrows(IllegalArgumentException.class, () -> IbvConnectionCodec.decodeAddress(endpoint, 0))
                .getMessage());
        assertEquals("UD QP number 16777216 outside [0, 16777215] (24 bits)", assertThrows(
            IllegalArgumentException.class, () -> new IbvConnectionCodec.Address(0, 3, new byte[16], 1 << 24, 0))
            .getMessage());
    }
}
