package org.gexj.testkit;

import org.gexj.coll.ReduceOp;
import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The sequential model {@link CollKit} checks collectives against, written apart from the library: every rank's
 * contribution is a function of (seed, step, rank, index), so any rank computes what every other contributed, and a
 * reduction is a left fold in rank order. Values are small integers, also for floating point, so that every order of
 * combination gives the same bits.
 */
final class CollModel {
    private CollModel() {
    }

    /** The members of {@code color} in a split, as their parent ranks ordered by (key, parent rank). */
    static List<Integer> members(int[] colors, int[] keys, int color) {
        final List<Integer> m = new ArrayList<>();
        for (int r = 0; r < colors.length; r++) {
            if (colors[r] == color) {
                m.add(r);
            }
        }
        m.sort((a, b) -> keys[a] != keys[b] ? Integer.compare(keys[a], keys[b]) : Integer.compare(a, b));
        return m;
    }

    /** Element {@code i} of {@code rank}'s contribution, as the type's bits (32-bit types sign-extended). */
    static long element(AtomicType type, ReduceOp op, long seed, int step, int rank, long i) {
        long h = seed * 0x9E3779B97F4A7C15L + step * 0xC2B2AE3D27D4EB4FL + rank * 0x165667B19E3779F9L + i * 31;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        final boolean small = op == ReduceOp.MULT;
        return switch (type) {
            case FLOAT32 -> Float.floatToRawIntBits((float) (h % (small ? 4 : 500)));
            case FLOAT64 -> Double.doubleToRawLongBits(h % (small ? 4 : 500));
            case INT32, UINT32 -> (int) h;
            case INT64, UINT64 -> h;
        };
    }

    static void write(MemorySegment m, AtomicType type, long i, long bits) {
        if (type.bytes() == 4) {
            m.set(ValueLayout.JAVA_INT_UNALIGNED, 4 * i, (int) bits);
        } else {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8 * i, bits);
        }
    }

    static long read(MemorySegment m, AtomicType type, long i) {
        return type.bytes() == 4 ? m.get(ValueLayout.JAVA_INT_UNALIGNED, 4 * i)
            : m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8 * i);
    }

    /** {@code a op b} on the type's bits. */
    static long combine(AtomicType type, ReduceOp op, long a, long b) {
        switch (type) {
            case FLOAT32 -> {
                final float x = Float.intBitsToFloat((int) a);
                final float y = Float.intBitsToFloat((int) b);
                return Float.floatToRawIntBits(switch (op) {
                    case ADD -> x + y;
                    case MULT -> x * y;
                    case MIN -> Math.min(x, y);
                    default -> Math.max(x, y);
                });
            }
            case FLOAT64 -> {
                final double x = Double.longBitsToDouble(a);
                final double y = Double.longBitsToDouble(b);
                return Double.doubleToRawLongBits(switch (op) {
                    case ADD -> x + y;
                    case MULT -> x * y;
                    case MIN -> Math.min(x, y);
                    default -> Math.max(x, y);
                });
            }
            default -> {
                final boolean unsigned = type == AtomicType.UINT32 || type == AtomicType.UINT64;
                final long ua = type == AtomicType.UINT32 ? a & 0xFFFF_FFFFL : a;
                final long ub = type == AtomicType.UINT32 ? b & 0xFFFF_FFFFL : b;
                final int cmp = unsigned ? Long.compareUnsigned(ua, ub) : Long.compare(a, b);
                final long r = switch (op) {
                    case ADD -> a + b;
                    case MULT -> a * b;
                    case AND -> a & b;
                    case OR -> a | b;
                    case XOR -> a ^ b;
                    case MIN -> cmp <= 0 ? a : b;
                    case MAX -> cmp >= 0 ? a : b;
                };
                return type.bytes() == 4 ? (int) r : r;
            }
        }
    }
}
