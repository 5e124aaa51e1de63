package org.gexj.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Deterministic byte patterns, so a receiver can check a payload without being sent the expected bytes. */
public final class Patterns {
    private Patterns() {
    }

    public static byte at(int seed, long index) {
        long x = seed * 0x9E3779B97F4A7C15L + index * 0xBF58476D1CE4E5B9L;
        x ^= x >>> 29;
        return (byte) x;
    }

    public static void fill(MemorySegment segment, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, at(seed, i));
        }
    }

    /** @return -1 if {@code segment[offset, offset+length)} holds the pattern, else the first bad index */
    public static long firstMismatch(MemorySegment segment, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != at(seed, i)) {
                return i;
            }
        }
        return -1;
    }
}
