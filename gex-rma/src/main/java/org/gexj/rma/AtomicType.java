package org.gexj.rma;

/**
 * The data type of an {@link AtomicDomain} ({@code gex_DT_t}): GASNet's {@code I32}, {@code U32}, {@code I64},
 * {@code U64}, {@code FLT} and {@code DBL}. The integer types travel in a {@code long}, the floating-point ones in a
 * {@code double}; a 32-bit one occupies 4 bytes of memory, a 64-bit one 8, aligned to their size and in native byte
 * order.
 */
public enum AtomicType {
    /** {@code int32_t}: results sign-extended into the long. */
    INT32(4, true, true),
    /** {@code uint32_t}: results zero-extended into the long; MIN and MAX compare unsigned. */
    UINT32(4, true, false),
    /** {@code int64_t}. */
    INT64(8, true, true),
    /** {@code uint64_t}: MIN and MAX compare unsigned. */
    UINT64(8, true, false),
    /** {@code float}: operands and results are converted from and to double. */
    FLOAT32(4, false, true),
    /** {@code double}. */
    FLOAT64(8, false, true);

    private final int bytes;
    private final boolean integer;
    private final boolean signed;

    AtomicType(int bytes, boolean integer, boolean signed) {
        this.bytes = bytes;
        this.integer = integer;
        this.signed = signed;
    }

    /** Its size in memory, which is also its alignment: 4 or 8. */
    public int bytes() {
        return bytes;
    }

    /** True for the integer types, which take {@link AtomicDomain#opLong} and the bitwise operations. */
    public boolean integer() {
        return integer;
    }

    boolean signed() {
        return signed;
    }
}
