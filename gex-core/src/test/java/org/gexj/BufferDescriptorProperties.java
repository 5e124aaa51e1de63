package org.gexj;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class BufferDescriptorProperties {
    @Test
    void everyDescriptorRoundTripsThroughItsEncodingAtAnyOffset() {
        qt().withExamples(1000).forAll(integers().allPositive(), integers().all(), longs().all(),
            longs().between(0, Long.MAX_VALUE)).checkAssert((rank, handle, address, length) -> {
                final int h = handle == 0 ? 1 : handle;
                final BufferDescriptor d = new BufferDescriptor(rank, h, address, length, address ^ length,
                    handle & (BufferDescriptor.READ_ONLY | BufferDescriptor.KEYED));
                assertEquals(d, BufferDescriptor.fromBytes(d.toBytes()));
                final MemorySegment buffer = Arena.ofAuto().allocate(BufferDescriptor.ENCODED_LENGTH + 7);
                final long at = Math.floorMod(address, 8);
                d.encode(buffer, at);
                assertEquals(d, BufferDescriptor.decode(buffer, at));
            });
    }

    @Test
    void aRangeIsAcceptedExactlyWhenItLiesInTheRegistration() {
        final long[] edges = {Long.MIN_VALUE, -1, 0, 1, 99, 100, 101, Long.MAX_VALUE - 100, Long.MAX_VALUE};
        final BufferDescriptor d = new BufferDescriptor(1, 5, 4096, 100, 0);
        for (long offset : edges) {
            for (long nbytes : edges) {
                final boolean inside = offset >= 0 && nbytes >= 0 && offset <= 100 && nbytes <= 100 - offset;
                if (inside) {
                    d.checkRange(offset, nbytes);
                } else {
                    final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> d.checkRange(offset, nbytes), () -> offset + " + " + nbytes);
                    assertTrue(e.getMessage().contains("[" + offset + ", ") && e.getMessage().contains("[0, 100)")
                        && e.getMessage().contains("rank 1"), e.getMessage());
                }
            }
        }
    }

    @Test
    void badInputIsRefusedNamingTheValue() {
        assertMessage(() -> new BufferDescriptor(-1, 1, 0, 0, 0), "-1");
        assertMessage(() -> new BufferDescriptor(0, 0, 0, 0, 0), "handle 0");
        assertMessage(() -> new BufferDescriptor(0, 1, 0, -5, 0), "-5");
        assertMessage(() -> new BufferDescriptor(0, 1, 0, 5, 0, 4), "flags 0x4");
        assertMessage(() -> BufferDescriptor.fromBytes(new byte[39]), "39");
        final byte[] bytes = new BufferDescriptor(0, 1, 0, 0, 0).toBytes();
        bytes[0] ^= 1;
        assertMessage(() -> BufferDescriptor.fromBytes(bytes), "0x47584400");
        final byte[] cut = Arrays.copyOf(new BufferDescriptor(0, 1, 0, 0, 0).toBytes(), 39);
        assertThrows(IndexOutOfBoundsException.class, () -> BufferDescriptor.decode(MemorySegment.ofArray(cut), 0));
    }

    private static void assertMessage(Runnable r, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(mentioned), "'" + e.getMessage() + "' should name " + mentioned);
    }
}
