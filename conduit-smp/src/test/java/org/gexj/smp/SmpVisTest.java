package org.gexj.smp;

import org.gexj.rma.Rma;
import org.gexj.rma.Vis;
import org.gexj.testkit.VisKit;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Non-contiguous RMA over smp, and its direct copies by piece size: loads and stores, the JDK's copy stub, and
 * {@code memcpy} from 256 B, except for pieces of 4 KiB and more in a transfer that fits L1 (CrossMappedRmaEngine).
 */
class SmpVisTest extends VisKit {
    private static final long HALF = 1 << 20;

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "smp");
    }

    /**
     * Vector puts and gets whose lists pair up, and strided ones, of pieces of every copy size, few and many (a
     * transfer under and over 32 KiB): each lands where the contiguous copies would.
     */
    @Test
    void directPiecesOfEveryCopySizeLandWhereContiguousCopiesWould() {
        job(2, client -> {
            final Vis vis = Vis.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(2 * HALF);
            final int peer = (client.rank() + 1) % 2;
            final long base = client.rank() * HALF;
            final Random random = new Random(17 + client.rank());
            for (long piece : new long[] {8, 40, 256, 4096, 20000}) {
                for (int count : new int[] {1, 4, 12}) {
                    final long total = piece * count;
                    final byte[] data = new byte[(int) (2 * total)];
                    random.nextBytes(data);
                    final MemorySegment src = Arena.ofAuto().allocate(2 * total);
                    src.copyFrom(MemorySegment.ofArray(data));
                    // destinations ascending with a gap of one piece, sources in reverse order
                    final long[] lengths = new long[count];
                    final long[] remote = new long[count];
                    final long[] local = new long[count];
                    for (int i = 0; i < count; i++) {
                        lengths[i] = i % 3 == 1 ? piece / 2 + 1 : piece; // mixed sizes after the first piece's
                        remote[i] = base + 2 * piece * i;
                        local[i] = (count - 1 - i) * piece;
                    }
                    rma.put(peer, base, Arena.ofAuto().allocate(2 * total), 0, 2 * total); // zeros around the pieces
                    vis.putVector(peer, count, remote, lengths, src, count, local, lengths);
                    final MemorySegment landed = Arena.ofAuto().allocate(2 * total);
                    rma.get(landed, 0, peer, base, 2 * total);
                    final MemorySegment back = Arena.ofAuto().allocate(2 * total);
                    // a get of the same pieces, into ascending local places
                    final long[] ascending = new long[count];
                    for (int i = 0; i < count; i++) {
                        ascending[i] = 2 * piece * i;
                    }
                    vis.getVector(back, count, ascending, lengths, peer, count, remote, lengths);
                    for (int i = 0; i < count; i++) {
                        final String what = count + " pieces of " + piece + " B, piece " + i;
                        final long n = lengths[i];
                        final byte[] expected = src.asSlice(local[i], n).toArray(ValueLayout.JAVA_BYTE);
                        assertArrayEquals(expected, landed.asSlice(2 * piece * i, n).toArray(ValueLayout.JAVA_BYTE),
                            "put " + what);
                        assertArrayEquals(expected, back.asSlice(2 * piece * i, n).toArray(ValueLayout.JAVA_BYTE),
                            "get " + what);
                        final byte[] gap = new byte[(int) (2 * piece - n)];
                        assertArrayEquals(gap, landed.asSlice(2 * piece * i + n, gap.length)
                            .toArray(ValueLayout.JAVA_BYTE), "put " + what + ": bytes after it");
                        assertArrayEquals(gap, back.asSlice(2 * piece * i + n, gap.length)
                            .toArray(ValueLayout.JAVA_BYTE), "get " + what + ": bytes after it");
                    }
                    // strided: the same elements, a stride of two pieces at the target, dense at the source
                    vis.putStrided(peer, base + piece, new long[] {2 * piece}, src, total, new long[] {piece}, piece,
                        new long[] {count}, 1);
                    rma.get(landed, 0, peer, base, 2 * total);
                    for (int i = 0; i < count; i++) {
                        assertArrayEquals(src.asSlice(total + piece * i, piece).toArray(ValueLayout.JAVA_BYTE),
                            landed.asSlice(piece + 2 * piece * i, piece).toArray(ValueLayout.JAVA_BYTE),
                            "strided put of " + count + " elements of " + piece + " B, element " + i);
                    }
                }
            }
            client.barrier();
        });
    }

    /**
     * Strided shapes contiguous on both sides (each level strided by the bytes below it; levels of one element
     * anywhere), which smp copies as one run, and one contiguous on one side only: each lands as the contiguous copy
     * would, and the bytes beside it stay.
     */
    @Test
    void contiguousStridedShapesLandAsOneCopy() {
        job(2, client -> {
            final Vis vis = Vis.of(client);
            final Rma rma = Rma.of(client);
            client.attachSegment(2 * HALF);
            final int peer = (client.rank() + 1) % 2;
            final long base = client.rank() * HALF + 64;
            final MemorySegment src = Arena.ofAuto().allocate(512);
            for (int i = 0; i < 512; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + client.rank()));
            }
            final long[][] strides = {{8, 32}, {8, 999, 32}, {24}, {8, 32}};
            final long[][] counts = {{4, 3}, {4, 1, 3}, {1}, {4, 3}};
            final long[][] localStrides = {{8, 32}, {8, 5, 32}, {3}, {8, 40}}; // the last one not contiguous here
            for (int s = 0; s < strides.length; s++) {
                final long bytes = 96;
                final long elem = s == 2 ? 96 : 8;
                rma.put(peer, base - 64, Arena.ofAuto().allocate(bytes + 128), 0, bytes + 128); // zeros around
                vis.putStrided(peer, base, strides[s], src, 16, localStrides[s], elem, counts[s], counts[s].length);
                final MemorySegment landed = Arena.ofAuto().allocate(bytes + 128);
                rma.get(landed, 0, peer, base - 64, bytes + 128);
                // the last shape's source: rows of 32 bytes 40 apart
                final long localRow = s == 3 ? 40 : 32;
                assertArrayEquals(rows(src, 16, localRow, bytes + 128, 64, 32), landed.toArray(ValueLayout.JAVA_BYTE),
                    "strided put, shape " + s);
                final MemorySegment back = Arena.ofAuto().allocate(256);
                vis.getStrided(back, 16, localStrides[s], peer, base, strides[s], elem, counts[s], counts[s].length);
                assertArrayEquals(rows(src, 16, localRow, 256, 16, localRow), back.toArray(ValueLayout.JAVA_BYTE),
                    "strided get, shape " + s);
            }
            client.barrier();
        });
    }

    /** Zeros of {@code size} bytes but three rows of 32 bytes from {@code src}, {@code from} and {@code to} apart. */
    private static byte[] rows(MemorySegment src, long at, long from, long size, long there, long to) {
        final MemorySegment image = Arena.ofAuto().allocate(size);
        for (int row = 0; row < 3; row++) {
            image.asSlice(there + to * row, 32).copyFrom(src.asSlice(at + from * row, 32));
        }
        return image.toArray(ValueLayout.JAVA_BYTE);
    }
}
