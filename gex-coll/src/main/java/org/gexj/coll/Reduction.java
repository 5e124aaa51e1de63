package org.gexj.coll;

import org.gexj.rma.AtomicType;

import java.lang.foreign.ValueLayout;

/** The built-in operators as {@link ReduceFunction}s, one per type and operator, made once. */
final class Reduction {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ReduceFunction[][] FUNCTIONS = new ReduceFunction[AtomicType.values().length][];

    static {
        for (AtomicType type : AtomicType.values()) {
            FUNCTIONS[type.ordinal()] = new ReduceFunction[ReduceOp.values().length];
            for (ReduceOp op : ReduceOp.values()) {
                if (type.integer() || op.takesFloatingPoint()) {
                    FUNCTIONS[type.ordinal()][op.ordinal()] = make(type, op);
                }
            }
        }
    }

    private Reduction() {
    }

    /** @throws IllegalArgumentException if {@code op} does not take {@code type} */
    static ReduceFunction of(AtomicType type, ReduceOp op) {
        final ReduceFunction f = FUNCTIONS[type.ordinal()][op.ordinal()];
        if (f == null) {
            throw new IllegalArgumentException(op + " does not take " + type + ": bitwise operators take INT32, UINT32,"
                + " INT64 and UINT64 only");
        }
        return f;
    }

    private static ReduceFunction make(AtomicType type, ReduceOp op) {
        return switch (type) {
            case INT32, UINT32 -> (in, io, n) -> {
                for (long i = 0, at = 0; i < n; i++, at += 4) {
                    io.set(INT, at, (int) integer(op, type, in.get(INT, at), io.get(INT, at)));
                }
            };
            case INT64, UINT64 -> (in, io, n) -> {
                for (long i = 0, at = 0; i < n; i++, at += 8) {
                    io.set(LONG, at, integer(op, type, in.get(LONG, at), io.get(LONG, at)));
                }
            };
            case FLOAT32 -> (in, io, n) -> {
                for (long i = 0, at = 0; i < n; i++, at += 4) {
                    io.set(FLOAT, at, (float) floating(op, in.get(FLOAT, at), io.get(FLOAT, at)));
                }
            };
            case FLOAT64 -> (in, io, n) -> {
                for (long i = 0, at = 0; i < n; i++, at += 8) {
                    io.set(DOUBLE, at, floating(op, in.get(DOUBLE, at), io.get(DOUBLE, at)));
                }
            };
        };
    }

    /** Both operands as the type's bits (an int sign-extended; the caller truncates 32-bit results). */
    private static long integer(ReduceOp op, AtomicType type, long a, long b) {
        return switch (op) {
            case ADD -> a + b;
            case MULT -> a * b;
            case AND -> a & b;
            case OR -> a | b;
            case XOR -> a ^ b;
            case MIN -> compare(type, a, b) <= 0 ? a : b;
            case MAX -> compare(type, a, b) >= 0 ? a : b;
        };
    }

    private static int compare(AtomicType type, long a, long b) {
        return switch (type) {
            case UINT32 -> Integer.compareUnsigned((int) a, (int) b);
            case UINT64 -> Long.compareUnsigned(a, b);
            default -> Long.compare(a, b);
        };
    }

    /** In double: a float's sum or product rounded once to float is the float operation's own result. */
    private static double floating(ReduceOp op, double a, double b) {
        return switch (op) {
            case ADD -> a + b;
            case MULT -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalStateException(op + " on floating point"); // refused by of()
        };
    }
}
