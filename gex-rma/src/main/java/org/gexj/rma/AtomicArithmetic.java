package org.gexj.rma;

import org.agrona.UnsafeApi;

/**
 * The CPU's atomic operations on memory, which every implementation of {@link AtomicDomain} ends in (smp's on the
 * peer's cross-mapped segment, AM's in the target's handler, a rank's on itself), so that all of a domain's accesses
 * are atomic with respect to each other. Values travel as bits in a long: 32-bit integers sign-
 * ({@link AtomicType#INT32}) or zero-extended ({@link AtomicType#UINT32}), a float's bits zero-extended, a double's
 * bits.
 *
 * <p>Integer ADD, SUB, INC, DEC, the bitwise operations, SWAP and CAS are single instructions (the JDK's
 * getAndAdd, getAndBitwise*, getAndSet, compareAndExchange); MULT, MIN, MAX and all floating-point arithmetic are
 * compare-and-exchange loops. Every access is volatile (sequentially consistent).
 *
 * <p>They take raw addresses, as smp's copies do ({@code CrossMappedRmaEngine}): the callers have checked the range
 * and the alignment, and the memory is a segment mapped for the client's life. Through a {@code MemorySegment}'s
 * var handle, the segment's own checks (bounds, alignment, liveness, confinement) cost an smp operation more than the
 * instruction itself.
 */
final class AtomicArithmetic {
    private AtomicArithmetic() {
    }

    /**
     * Applies {@code op} with operands {@code a} and {@code b} to the value of {@code type} at {@code address}
     * (aligned, in a live segment: checked by the caller).
     *
     * @return the value it held before, as bits (for non-fetching operations too)
     */
    static long apply(AtomicType type, AtomicOp op, long address, long a, long b) {
        return type.integer() ? applyInteger(type, op, address, a, b) : applyFloating(type, op, address, a, b);
    }

    /**
     * {@link #apply} for an integer type. Callers that know the type's kind call this or {@link #applyFloating}: each
     * then keeps a profile of its own kind's operations, and the JIT compiles no other's into the caller.
     */
    static long applyInteger(AtomicType type, AtomicOp op, long address, long a, long b) {
        if (op.adds()) {
            // the commonest (counters), first: a switch of every operation compiles too large for the JIT to inline
            // the caller's direct path into its loop
            return type.bytes() == 4 ? extend(type, UnsafeApi.getAndAddInt(null, address, (int) op.addend(a)))
                : UnsafeApi.getAndAddLong(null, address, op.addend(a));
        }
        return type.bytes() == 4 ? apply32(type, op, address, (int) a, (int) b) : apply64(type, op, address, a, b);
    }

    /** {@link #apply} for a floating-point type. */
    static long applyFloating(AtomicType type, AtomicOp op, long address, long a, long b) {
        if (op.adds()) {
            // first, as in applyInteger: a compare-and-exchange loop that adds, smaller than the general one
            return type.bytes() == 4 ? addFloat(address, (float) op.addend((double) Float.intBitsToFloat((int) a)))
                : addDouble(address, op.addend(Double.longBitsToDouble(a)));
        }
        return type.bytes() == 4 ? apply32(type, op, address, (int) a, (int) b) : apply64(type, op, address, a, b);
    }

    /** The bits of a 32-bit value of {@code type} in a long. */
    static long extend(AtomicType type, int bits) {
        return type == AtomicType.INT32 ? bits : bits & 0xffff_ffffL;
    }

    private static long apply32(AtomicType type, AtomicOp op, long at, int a, int b) {
        final int old = switch (op) {
            case GET -> UnsafeApi.getIntVolatile(null, at);
            case SET, SWAP -> UnsafeApi.getAndSetInt(null, at, a);
            case CAS, FCAS -> UnsafeApi.compareAndExchangeInt(null, at, a, b);
            case AND, FAND -> UnsafeApi.getAndBitwiseAndInt(null, at, a);
            case OR, FOR -> UnsafeApi.getAndBitwiseOrInt(null, at, a);
            case XOR, FXOR -> UnsafeApi.getAndBitwiseXorInt(null, at, a);
            case MULT, FMULT, MIN, FMIN, MAX, FMAX -> loop32(type, op, at, a);
            case ADD, FADD, SUB, FSUB, INC, FINC, DEC, FDEC -> throw addFamily(op);
        };
        return extend(type, old);
    }

    private static long apply64(AtomicType type, AtomicOp op, long at, long a, long b) {
        return switch (op) {
            case GET -> UnsafeApi.getLongVolatile(null, at);
            case SET, SWAP -> UnsafeApi.getAndSetLong(null, at, a);
            case CAS, FCAS -> UnsafeApi.compareAndExchangeLong(null, at, a, b);
            case AND, FAND -> UnsafeApi.getAndBitwiseAndLong(null, at, a);
            case OR, FOR -> UnsafeApi.getAndBitwiseOrLong(null, at, a);
            case XOR, FXOR -> UnsafeApi.getAndBitwiseXorLong(null, at, a);
            case MULT, FMULT, MIN, FMIN, MAX, FMAX -> loop64(type, op, at, a);
            case ADD, FADD, SUB, FSUB, INC, FINC, DEC, FDEC -> throw addFamily(op);
        };
    }

    /** The add family never reaches the switches: applyInteger and applyFloating take it first. */
    private static IllegalStateException addFamily(AtomicOp op) {
        return new IllegalStateException(op + " is applied before the switch");
    }

    /**
     * Adds {@code d} to the float at {@code at}, in float: no conversions in the loop's dependency chain (the general
     * path's sum in double, rounded once, is the same for the add family's float operands).
     *
     * @return the float's previous bits, zero-extended
     */
    private static long addFloat(long at, float d) {
        int old = UnsafeApi.getIntVolatile(null, at);
        while (true) {
            final int sum = Float.floatToRawIntBits(Float.intBitsToFloat(old) + d);
            final int witness = UnsafeApi.compareAndExchangeInt(null, at, old, sum);
            if (witness == old) {
                return old & 0xffff_ffffL;
            }
            old = witness;
        }
    }

    /** Adds {@code d} to the double at {@code at}. @return its previous bits */
    private static long addDouble(long at, double d) {
        long old = UnsafeApi.getLongVolatile(null, at);
        while (true) {
            final long sum = Double.doubleToRawLongBits(Double.longBitsToDouble(old) + d);
            final long witness = UnsafeApi.compareAndExchangeLong(null, at, old, sum);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    private static int loop32(AtomicType type, AtomicOp op, long at, int a) {
        int old = UnsafeApi.getIntVolatile(null, at);
        while (true) {
            final int witness = UnsafeApi.compareAndExchangeInt(null, at, old, next32(type, op, old, a));
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    private static long loop64(AtomicType type, AtomicOp op, long at, long a) {
        long old = UnsafeApi.getLongVolatile(null, at);
        while (true) {
            final long witness = UnsafeApi.compareAndExchangeLong(null, at, old, next64(type, op, old, a));
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    /** The value MULT, MIN or MAX (or their fetching twins) leaves where {@code old} was: what the loops need. */
    private static int next32(AtomicType type, AtomicOp op, int old, int a) {
        if (type == AtomicType.FLOAT32) {
            // in double, then rounded once to float: for * of floats exactly float's own product
            return Float.floatToRawIntBits((float) floating(op, Float.intBitsToFloat(old), Float.intBitsToFloat(a)));
        }
        final boolean signed = type.signed();
        return switch (op) {
            case MULT, FMULT -> old * a;
            case MIN, FMIN -> (signed ? Integer.compare(a, old) : Integer.compareUnsigned(a, old)) < 0 ? a : old;
            case MAX, FMAX -> (signed ? Integer.compare(a, old) : Integer.compareUnsigned(a, old)) > 0 ? a : old;
            default -> throw new IllegalStateException(op + " is a single instruction on " + type);
        };
    }

    /** As {@link #next32}, for 64-bit types. */
    private static long next64(AtomicType type, AtomicOp op, long old, long a) {
        if (type == AtomicType.FLOAT64) {
            return Double.doubleToRawLongBits(floating(op, Double.longBitsToDouble(old), Double.longBitsToDouble(a)));
        }
        final boolean signed = type.signed();
        return switch (op) {
            case MULT, FMULT -> old * a;
            case MIN, FMIN -> (signed ? Long.compare(a, old) : Long.compareUnsigned(a, old)) < 0 ? a : old;
            case MAX, FMAX -> (signed ? Long.compare(a, old) : Long.compareUnsigned(a, old)) > 0 ? a : old;
            default -> throw new IllegalStateException(op + " is a single instruction on " + type);
        };
    }

    /** The floating-point arithmetic of {@code op} on the old value {@code x} and the operand {@code y}. */
    private static double floating(AtomicOp op, double x, double y) {
        return switch (op) {
            case MULT, FMULT -> x * y;
            case MIN, FMIN -> y < x ? y : x;
            case MAX, FMAX -> y > x ? y : x;
            default -> throw new IllegalStateException(op + " is no arithmetic");
        };
    }
}
