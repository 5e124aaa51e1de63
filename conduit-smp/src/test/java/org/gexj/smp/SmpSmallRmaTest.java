package org.gexj.smp;

import org.gexj.launch.InProcessJob;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Puts and gets on smp, which copy raw addresses (unsafe loads and stores up to 32 bytes, the JDK's copy stub up to
 * 16384, {@code memcpy} above): every size from 0 to 72 bytes and sizes on either side of 4096 and 16384 at odd
 * offsets land exactly, touching no byte around them; heap, overlapping (either way round, in every size class) and
 * closed buffers behave as the JDK's copy does.
 */
class SmpSmallRmaTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void smallPutsAndGetsMoveExactlyTheirBytes() {
        InProcessJob.run(2, Duration.ofSeconds(50), Map.of("GEX_CONDUIT", "smp"), client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment segment = client.attachSegment(1 << 16).memory();
            client.barrier();
            if (client.rank() == 0) {
                final int window = 17000;
                final MemorySegment src = Arena.ofShared().allocate(window);
                final MemorySegment back = Arena.ofShared().allocate(window + 8);
                final MemorySegment zeros = Arena.ofShared().allocate(window);
                final int[] sizes = java.util.stream.IntStream.concat(java.util.stream.IntStream.rangeClosed(0, 72),
                    java.util.stream.IntStream.of(100, 1000, 4095, 4096, 5000, 16384, 16385)).toArray();
                for (int n : sizes) {
                    for (int i = 0; i < window; i++) {
                        src.set(ValueLayout.JAVA_BYTE, i, (byte) (n * 7 + i));
                    }
                    rma.put(1, 1000, src.asSlice(0, 0), 0, 0); // a 0-byte put is a no-op
                    rma.put(1, 1000, zeros, 0, window); // clear the target's window
                    rma.put(1, 1003 + 40, src, 5, n);
                    back.fill((byte) -1);
                    rma.get(back, 3, 1, 1003, n + 80);
                    for (int i = 0; i < n + 80; i++) {
                        final int at = 1003 + i;
                        final byte want = at >= 1043 && at < 1043 + n ? (byte) (n * 7 + 5 + at - 1043) : 0;
                        assertEquals(want, back.get(ValueLayout.JAVA_BYTE, 3 + i), "size " + n + ", byte " + i);
                    }
                    assertEquals((byte) -1, back.get(ValueLayout.JAVA_BYTE, 2), "size " + n + ": byte before");
                    assertEquals((byte) -1, back.get(ValueLayout.JAVA_BYTE, 3 + n + 80), "size " + n + ": byte after");
                }
                // a heap source and destination take the JDK's copy
                final byte[] heap = {1, 2, 3, 4, 5, 6, 7, 8, 9};
                rma.put(1, 2000, MemorySegment.ofArray(heap), 0, 9);
                final byte[] got = new byte[9];
                rma.get(MemorySegment.ofArray(got), 0, 1, 2000, 9);
                assertEquals(java.util.Arrays.toString(heap), java.util.Arrays.toString(got));
                // overlapping ranges of this rank's own segment, the target after or before the source: memmove
                // semantics (small copies load every byte before they store any)
                final int[] overlapping = java.util.stream.IntStream.concat(java.util.stream.IntStream.rangeClosed(2,
                    72), java.util.stream.IntStream.of(200, 4095, 4096, 5000, 16384, 16385)).toArray();
                for (int n : overlapping) {
                    for (int shift : new int[] {1, 3, 8, 17, -1, -3, -8, -17}) {
                        if (Math.abs(shift) >= n) {
                            continue;
                        }
                        final long from = 3000;
                        final long to = from + shift;
                        for (int i = 0; i < n; i++) {
                            segment.set(ValueLayout.JAVA_BYTE, from + i, (byte) (i + n));
                        }
                        rma.put(0, to, segment, from, n);
                        for (int i = 0; i < n; i++) {
                            assertEquals((byte) (i + n), segment.get(ValueLayout.JAVA_BYTE, to + i), "overlapping put"
                                + " of " + n + " bytes shifted by " + shift + ", byte " + i);
                        }
                        rma.get(segment, from, 0, to, n);
                        for (int i = 0; i < n; i++) {
                            assertEquals((byte) (i + n), segment.get(ValueLayout.JAVA_BYTE, from + i), "overlapping get"
                                + " of " + n + " bytes shifted by " + shift + ", byte " + i);
                        }
                    }
                }
                // a closed source throws, as the JDK's copy does, and writes nothing
                final Arena closed = Arena.ofShared();
                final MemorySegment gone = closed.allocate(16);
                closed.close();
                rma.put(1, 4000, Arena.ofShared().allocate(16), 0, 16);
                assertThrows(IllegalStateException.class, () -> rma.put(1, 4000, gone, 0, 8));
                assertThrows(IllegalStateException.class, () -> rma.put(1, 4000, gone, 0, 16));
                assertThrows(IllegalStateException.class, () -> rma.get(gone, 0, 1, 4000, 16));
                // a read-only destination is refused before anything is copied
                final MemorySegment readOnly = Arena.ofShared().allocate(64).asReadOnly();
                assertThrows(IllegalArgumentException.class, () -> rma.get(readOnly, 0, 1, 4000, 64));
                final MemorySegment check = Arena.ofShared().allocate(16);
                rma.get(check, 0, 1, 4000, 16);
                assertEquals(0L, check.get(ValueLayout.JAVA_LONG, 0) | check.get(ValueLayout.JAVA_LONG, 8));
            }
            client.barrier();
        });
    }
}
