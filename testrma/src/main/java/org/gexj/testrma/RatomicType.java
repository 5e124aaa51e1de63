package org.gexj.testrma;

import org.gexj.Event;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The six data types of {@link TestRatomic} in GASNet's order (U32, I32, U64, I64, FLT, DBL), with C's arithmetic on
 * them. Every value travels as a {@code long}: an integer sign-extended (I32) or zero-extended (U32) from its width, a
 * float or a double as the bits of the double it is exactly (FLT values are always floats). Integer arithmetic wraps
 * as C's does, floating-point arithmetic is IEEE's in the type's own precision, and comparisons are C's: unsigned for
 * U32 and U64, numeric (0.0 == -0.0) for FLT and DBL.
 */
enum RatomicType {
    U32(AtomicType.UINT32, "uint32_t"),
    I32(AtomicType.INT32, "int32_t"),
    U64(AtomicType.UINT64, "uint64_t"),
    I64(AtomicType.INT64, "int64_t"),
    FLT(AtomicType.FLOAT32, "float"),
    DBL(AtomicType.FLOAT64, "double");

    final AtomicType atomic;
    /** The C type's name, as GASNet's "Tests for type" line prints it. */
    final String cName;
    final boolean isInt;
    final int bytes;
    private final boolean unsigned;

    RatomicType(AtomicType atomic, String cName) {
        this.atomic = atomic;
        this.cName = cName;
        this.isInt = atomic.integer();
        this.bytes = atomic.bytes();
        this.unsigned = atomic == AtomicType.UINT32 || atomic == AtomicType.UINT64;
    }

    /** An integer's bits cut to the type's width and extended back. */
    private long norm(long v) {
        return switch (this) {
            case I32 -> (int) v;
            case U32 -> v & 0xffff_ffffL;
            default -> v;
        };
    }

    private static double fp(long v) {
        return Double.longBitsToDouble(v);
    }

    private static long ofFloat(float f) {
        return Double.doubleToRawLongBits(f);
    }

    private static long ofDouble(double d) {
        return Double.doubleToRawLongBits(d);
    }

    /** {@code (type) v} for an {@code int64_t} v. */
    long of(long v) {
        return switch (this) {
            case FLT -> ofFloat((float) v);
            case DBL -> ofDouble((double) v);
            default -> norm(v);
        };
    }

    /** {@code (type) u} for a {@code uint64_t} u. */
    long ofU64(long u) {
        if (isInt || u >= 0) {
            return of(u);
        }
        // halved with the lost bit kept sticky, so that the one rounding is the conversion's
        final long half = (u >>> 1) | (u & 1);
        return this == FLT ? ofFloat((float) half * 2.0f) : ofDouble((double) half * 2.0);
    }

    long add(long a, long b) {
        return switch (this) {
            case FLT -> ofFloat((float) fp(a) + (float) fp(b));
            case DBL -> ofDouble(fp(a) + fp(b));
            default -> norm(a + b);
        };
    }

    long sub(long a, long b) {
        return switch (this) {
            case FLT -> ofFloat((float) fp(a) - (float) fp(b));
            case DBL -> ofDouble(fp(a) - fp(b));
            default -> norm(a - b);
        };
    }

    long mul(long a, long b) {
        return switch (this) {
            case FLT -> ofFloat((float) fp(a) * (float) fp(b));
            case DBL -> ofDouble(fp(a) * fp(b));
            default -> norm(a * b);
        };
    }

    long and(long a, long b) {
        return norm(a & b);
    }

    long or(long a, long b) {
        return norm(a | b);
    }

    long xor(long a, long b) {
        return norm(a ^ b);
    }

    /** C's {@code ==}. */
    boolean eq(long a, long b) {
        return isInt ? a == b : fp(a) == fp(b);
    }

    /** C's {@code <}. */
    boolean lt(long a, long b) {
        if (!isInt) {
            return fp(a) < fp(b);
        }
        return unsigned ? Long.compareUnsigned(a, b) < 0 : a < b;
    }

    /** GASNet's {@code MIN(a,b)}: {@code a < b ? a : b}. */
    long min(long a, long b) {
        return lt(a, b) ? a : b;
    }

    /** GASNet's {@code MAX(a,b)}: {@code a > b ? a : b}. */
    long max(long a, long b) {
        return lt(b, a) ? a : b;
    }

    /**
     * C's {@code v - u} for a value of the type and a {@code uint64_t} u: an integer is converted to 64 bits first
     * (the result compares with {@link #eq} to values of the type as C compares them); a float or double takes u in.
     */
    long minusU64(long v, long u) {
        return isInt ? v - u : sub(v, ofU64(u));
    }

    /** {@code (uint64_t) v} in decimal, as GASNet prints values with PRIu64. */
    String u64(long v) {
        return Long.toUnsignedString(isInt ? v : (long) fp(v));
    }

    /** {@code (int) v}, as GASNet prints fetched values with %d. */
    int toInt(long v) {
        return isInt ? (int) v : (int) fp(v);
    }

    /** The value a fetching operation stored at offset 0 of {@code result}. */
    long read(MemorySegment result) {
        return switch (this) {
            case I32 -> result.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
            case U32 -> result.get(ValueLayout.JAVA_INT_UNALIGNED, 0) & 0xffff_ffffL;
            case FLT -> ofFloat(result.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
            default -> result.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        };
    }

    /** {@code gex_AD_OpNB_<DT>}: the result, if any, at offset 0 of {@code result}; null if IMMEDIATE gave up. */
    Event nb(AtomicDomain ad, MemorySegment result, int rank, long offset, AtomicOp op, long a, long b, int flags) {
        return isInt ? ad.opLongNb(result, 0, rank, offset, op, a, b, flags)
            : ad.opDoubleNb(result, 0, rank, offset, op, fp(a), fp(b), flags);
    }

    /** {@code gex_AD_OpNBI_<DT>}: non-zero if IMMEDIATE gave up. */
    int nbi(AtomicDomain ad, MemorySegment result, int rank, long offset, AtomicOp op, long a, long b, int flags) {
        return isInt ? ad.opLongNbi(result, 0, rank, offset, op, a, b, flags)
            : ad.opDoubleNbi(result, 0, rank, offset, op, fp(a), fp(b), flags);
    }

    /** GASNet's max_u64 for the ring and counter tests: the largest value the type holds exactly, as uint64 bits. */
    long maxU64() {
        return switch (this) {
            case U32 -> 0xffff_ffffL;
            case I32 -> 0x7fff_ffffL;
            case U64 -> -1L;
            case I64 -> Long.MAX_VALUE;
            case FLT -> 1L << 23; // FLT_MANT_DIG - 1
            case DBL -> 1L << 52; // DBL_MANT_DIG - 1
        };
    }

    /** GASNet's hi of the randomized test's range [lo, hi]: 2*x*x stays exact in the type for x in it. */
    long hi() {
        return switch (this) {
            case U32 -> 0xB504; // floor(sqrt((2^32-1)/2))
            case I32 -> (1 << 15) - 1;
            case U64 -> 0xB504F333L; // floor(sqrt((2^64-1)/2))
            case I64 -> (1L << 31) - 1;
            case FLT -> 1 << (24 / 2); // FLT_MANT_DIG / 2
            case DBL -> 1 << (53 / 2); // DBL_MANT_DIG / 2
        };
    }

    /** GASNet's lo: 0 for the unsigned types, else -hi. */
    long lo() {
        return unsigned ? 0 : -hi();
    }
}
