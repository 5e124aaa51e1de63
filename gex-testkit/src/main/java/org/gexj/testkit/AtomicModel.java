package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;

/**
 * The sequential model {@link AtomicKit} checks remote atomics against, written from the operations' definitions
 * rather than from the library's code. Values are bits in a long: 32-bit integers sign- (INT32) or zero-extended
 * (UINT32), a float's bits zero-extended, a double's bits.
 */
final class AtomicModel {
    private AtomicModel() {
    }

    /** What one step of a random sequence does; null to replay a sequence for its final values only. */
    interface Step {
        /** @return the previous value the operation fetched (ignored for non-fetching operations) */
        long run(int type, AtomicOp op, long at, long a, long b, int form, int flags);
    }

    /** The operations a domain of {@code type} may take: all, less the bitwise ones for floating point. */
    static Set<AtomicOp> opsOf(AtomicType type) {
        final EnumSet<AtomicOp> ops = EnumSet.allOf(AtomicOp.class);
        if (!type.integer()) {
            ops.removeIf(AtomicOp::bitwise);
        }
        return ops;
    }

    /**
     * A random sequence of {@code steps} operations of rank {@code rank} on one value per type at
     * {@code base + 8 * type}, drawn from {@code seed}; each fetched value is checked against the model.
     *
     * @return the model's final value of each type
     */
    static long[] sequence(long seed, AtomicType[] types, long base, int steps, Step step) {
        final Random random = new Random(seed);
        final AtomicOp[][] ops = new AtomicOp[types.length][];
        for (int t = 0; t < types.length; t++) {
            ops[t] = opsOf(types[t]).toArray(new AtomicOp[0]);
        }
        final long[] model = new long[types.length];
        for (int i = 0; i < steps; i++) {
            final int t = random.nextInt(types.length);
            final AtomicType type = types[t];
            final AtomicOp op = ops[t][random.nextInt(ops[t].length)];
            final long a = random.nextInt(4) == 0 ? model[t] : operand(type, random);
            final long b = operand(type, random);
            final int form = random.nextInt(3);
            final int flags = random.nextInt(4) == 0 ? AtomicDomain.REL | AtomicDomain.ACQ : 0;
            final long before = model[t];
            model[t] = apply(type, op, before, a, b);
            if (step != null) {
                final long fetched = step.run(t, op, base + 8L * t, a, b, form, flags);
                if (op.fetching() && !same(type, fetched, before)) {
                    throw new AssertionError("step " + i + ": " + op + "(" + show(type, a) + ", " + show(type, b)
                        + ") on " + type + " fetched " + show(type, fetched) + ", the model held "
                        + show(type, before));
                }
            }
        }
        return model;
    }

    /** Small values, the ends of the type's range, -0.0, and anything. */
    static long operand(AtomicType type, Random random) {
        final int kind = random.nextInt(8);
        return switch (type) {
            case INT32 -> kind == 0 ? Integer.MIN_VALUE : kind == 1 ? Integer.MAX_VALUE : kind == 2
                ? random.nextInt() : random.nextInt(17) - 8;
            case UINT32 -> kind == 0 ? 0xffff_ffffL : kind == 1 ? 0x8000_0000L : kind == 2
                ? random.nextInt() & 0xffff_ffffL : random.nextInt(17);
            case INT64, UINT64 -> kind == 0 ? Long.MIN_VALUE : kind == 1 ? Long.MAX_VALUE : kind == 2
                ? random.nextLong() : random.nextInt(17) - 8;
            // -0.0 too: adding it keeps a -0.0 where adding +0.0 would not
            case FLOAT32 -> Float.floatToRawIntBits(kind == 0 ? -0f : (random.nextInt(17) - 8) / 2f) & 0xffff_ffffL;
            case FLOAT64 -> Double.doubleToRawLongBits(kind == 0 ? -0d : kind == 2 ? random.nextDouble()
                : (random.nextInt(17) - 8) / 2d);
        };
    }

    /** The value {@code op} leaves where {@code old} was. */
    static long apply(AtomicType type, AtomicOp op, long old, long a, long b) {
        return switch (op) {
            case GET -> old;
            case SET, SWAP -> a;
            case CAS, FCAS -> old == a ? b : old;
            default -> type.integer() ? integer(type, op, old, a) : floating(type, op, old, a);
        };
    }

    private static long integer(AtomicType type, AtomicOp op, long old, long a) {
        final boolean unsigned = type == AtomicType.UINT32 || type == AtomicType.UINT64;
        final int order = unsigned ? Long.compareUnsigned(a, old) : Long.compare(a, old);
        return narrow(type, switch (op) {
            case ADD, FADD -> old + a;
            case SUB, FSUB -> old - a;
            case INC, FINC -> old + 1;
            case DEC, FDEC -> old - 1;
            case MULT, FMULT -> old * a;
            case MIN, FMIN -> order < 0 ? a : old;
            case MAX, FMAX -> order > 0 ? a : old;
            case AND, FAND -> old & a;
            case OR, FOR -> old | a;
            case XOR, FXOR -> old ^ a;
            default -> throw new IllegalArgumentException(op.toString());
        });
    }

    private static long floating(AtomicType type, AtomicOp op, long old, long a) {
        final double x = value(type, old);
        final double y = value(type, a);
        final double r;
        if (type == AtomicType.FLOAT32) {
            final float fx = (float) x;
            final float fy = (float) y;
            r = switch (op) {
                case ADD, FADD -> fx + fy;
                case SUB, FSUB -> fx - fy;
                case INC, FINC -> fx + 1f;
                case DEC, FDEC -> fx - 1f;
                case MULT, FMULT -> fx * fy;
                case MIN, FMIN -> fy < fx ? fy : fx;
                case MAX, FMAX -> fy > fx ? fy : fx;
                default -> throw new IllegalArgumentException(op.toString());
            };
            return Float.floatToRawIntBits((float) r) & 0xffff_ffffL;
        }
        r = switch (op) {
            case ADD, FADD -> x + y;
            case SUB, FSUB -> x - y;
            case INC, FINC -> x + 1;
            case DEC, FDEC -> x - 1;
            case MULT, FMULT -> x * y;
            case MIN, FMIN -> y < x ? y : x;
            case MAX, FMAX -> y > x ? y : x;
            default -> throw new IllegalArgumentException(op.toString());
        };
        return Double.doubleToRawLongBits(r);
    }

    /** An integer value's bits as its type keeps them. */
    static long narrow(AtomicType type, long v) {
        return switch (type) {
            case INT32 -> (int) v;
            case UINT32, FLOAT32 -> v & 0xffff_ffffL;
            default -> v;
        };
    }

    static double value(AtomicType type, long bits) {
        return type == AtomicType.FLOAT32 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    }

    static boolean same(AtomicType type, long x, long y) {
        return type.integer() ? narrow(type, x) == narrow(type, y)
            : Double.compare(value(type, x), value(type, y)) == 0;
    }

    static String show(AtomicType type, long bits) {
        return type.integer() ? String.valueOf(narrow(type, bits)) : String.valueOf(value(type, bits));
    }

    /**
     * Runs one operation in form 0 (blocking), 1 (NB, awaited) or 2 (NBI, completed by its category's wait), the
     * result buffer at {@code resultOffset}.
     *
     * @return the fetched value as model bits (0 for non-fetching operations)
     */
    static long run(Client client, AtomicDomain domain, int form, MemorySegment result, long resultOffset, int target,
                    long at, AtomicOp op, long a, long b, int flags) {
        final AtomicType type = domain.type();
        if (type.integer()) {
            switch (form) {
                case 0 -> {
                    return domain.opLong(target, at, op, a, b, flags);
                }
                case 1 -> domain.opLongNb(result, resultOffset, target, at, op, a, b, flags).await();
                default -> {
                    domain.opLongNbi(result, resultOffset, target, at, op, a, b, flags);
                    client.nbiWait(op.category());
                }
            }
        } else {
            final double x = value(type, a);
            final double y = value(type, b);
            switch (form) {
                case 0 -> {
                    final double v = domain.opDouble(target, at, op, x, y, flags);
                    return type == AtomicType.FLOAT32 ? Float.floatToRawIntBits((float) v) & 0xffff_ffffL
                        : Double.doubleToRawLongBits(v);
                }
                case 1 -> domain.opDoubleNb(result, resultOffset, target, at, op, x, y, flags).await();
                default -> {
                    domain.opDoubleNbi(result, resultOffset, target, at, op, x, y, flags);
                    client.nbiWait(op.category());
                }
            }
        }
        if (!op.fetching()) {
            return 0;
        }
        return type.bytes() == 4 ? narrow(type, result.get(ValueLayout.JAVA_INT_UNALIGNED, resultOffset))
            : result.get(ValueLayout.JAVA_LONG_UNALIGNED, resultOffset);
    }
}
