package org.gexj.coll;

import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
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

    /** One loop per type and operator, the choice made once per call: the loops are what the JIT can vectorise. */
    private static ReduceFunction make(AtomicType type, ReduceOp op) {
        return switch (type) {
            case INT32, UINT32 -> (in, io, n) -> int32(op, type == AtomicType.UINT32, in, io, 4 * n);
            case INT64, UINT64 -> (in, io, n) -> int64(op, type == AtomicType.UINT64, in, io, 8 * n);
            case FLOAT32 -> (in, io, n) -> float32(op, in, io, 4 * n);
            case FLOAT64 -> (in, io, n) -> float64(op, in, io, 8 * n);
        };
    }

    private static void int32(ReduceOp op, boolean unsigned, MemorySegment in, MemorySegment io, long end) {
        switch (op) {
            case ADD -> {
                for (long at = 0; at < end; at += 4) {
                    io.set(INT, at, io.get(INT, at) + in.get(INT, at));
                }
            }
            case MULT -> {
                for (long at = 0; at < end; at += 4) {
                    io.set(INT, at, io.get(INT, at) * in.get(INT, at));
                }
            }
            case AND -> {
                for (long at = 0; at < end; at += 4) {
                    io.set(INT, at, io.get(INT, at) & in.get(INT, at));
                }
            }
            case OR -> {
                for (long at = 0; at < end; at += 4) {
                    io.set(INT, at, io.get(INT, at) | in.get(INT, at));
                }
            }
            case XOR -> {
                for (long at = 0; at < end; at += 4) {
                    io.set(INT, at, io.get(INT, at) ^ in.get(INT, at));
                }
            }
            case MIN, MAX -> {
                final int sign = op == ReduceOp.MIN ? 1 : -1; // MAX keeps the operand that compares higher
                for (long at = 0; at < end; at += 4) {
                    final int a = in.get(INT, at);
                    final int b = io.get(INT, at);
                    final int cmp = unsigned ? Integer.compareUnsigned(a, b) : Integer.compare(a, b);
                    io.set(INT, at, cmp * sign <= 0 ? a : b);
                }
            }
        }
    }

    private static void int64(ReduceOp op, boolean unsigned, MemorySegment in, MemorySegment io, long end) {
        switch (op) {
            case ADD -> {
                for (long at = 0; at < end; at += 8) {
                    io.set(LONG, at, io.get(LONG, at) + in.get(LONG, at));
                }
            }
            case MULT -> {
                for (long at = 0; at < end; at += 8) {
                    io.set(LONG, at, io.get(LONG, at) * in.get(LONG, at));
                }
            }
            case AND -> {
                for (long at = 0; at < end; at += 8) {
                    io.set(LONG, at, io.get(LONG, at) & in.get(LONG, at));
                }
            }
            case OR -> {
                for (long at = 0; at < end; at += 8) {
                    io.set(LONG, at, io.get(LONG, at) | in.get(LONG, at));
                }
            }
            case XOR -> {
                for (long at = 0; at < end; at += 8) {
                    io.set(LONG, at, io.get(LONG, at) ^ in.get(LONG, at));
                }
            }
            case MIN, MAX -> {
                final int sign = op == ReduceOp.MIN ? 1 : -1;
                for (long at = 0; at < end; at += 8) {
                    final long a = in.get(LONG, at);
                    final long b = io.get(LONG, at);
                    final int cmp = unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b);
                    io.set(LONG, at, cmp * sign <= 0 ? a : b);
                }
            }
        }
    }

    /** A float's sum or product computed in float is the C operation's result (each rounded once). */
    private static void float32(ReduceOp op, MemorySegment in, MemorySegment io, long end) {
        for (long at = 0; at < end; at += 4) {
            final float a = in.get(FLOAT, at);
            final float b = io.get(FLOAT, at);
            io.set(FLOAT, at, switch (op) {
                case ADD -> a + b;
                case MULT -> a * b;
                case MIN -> Math.min(a, b);
                default -> Math.max(a, b); // of() gives floating point ADD, MULT, MIN and MAX only
            });
        }
    }

    private static void float64(ReduceOp op, MemorySegment in, MemorySegment io, long end) {
        for (long at = 0; at < end; at += 8) {
            final double a = in.get(DOUBLE, at);
            final double b = io.get(DOUBLE, at);
            io.set(DOUBLE, at, switch (op) {
                case ADD -> a + b;
                case MULT -> a * b;
                case MIN -> Math.min(a, b);
                default -> Math.max(a, b);
            });
        }
    }
}
