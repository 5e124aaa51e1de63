package org.gexj.rma;

import org.gexj.Ec;

/**
 * A remote atomic operation ({@code gex_OP_t}). Each non-fetching operation has a fetching twin (its name with an
 * {@code F}; {@link #SET}'s is {@link #SWAP}, and {@link #GET} only fetches) that also returns the value the target
 * held before it. Operands: none for GET, INC and DEC; two for CAS and FCAS (compare, then swap in); one otherwise. The
 * bitwise operations take integer types only. A failed compare-and-swap is no spurious failure: the values differed.
 * Floating-point results follow Java's arithmetic, and CAS compares bit patterns, so NaN and -0.0 behave as their bits
 * do.
 */
public enum AtomicOp {
    SET(1, false, false, Ec.PUT),
    GET(0, true, false, Ec.GET),
    SWAP(1, true, false, Ec.RMW),
    CAS(2, false, false, Ec.RMW),
    FCAS(2, true, false, Ec.RMW),
    ADD(1, false, false, Ec.RMW),
    FADD(1, true, false, Ec.RMW),
    SUB(1, false, false, Ec.RMW),
    FSUB(1, true, false, Ec.RMW),
    MULT(1, false, false, Ec.RMW),
    FMULT(1, true, false, Ec.RMW),
    MIN(1, false, false, Ec.RMW),
    FMIN(1, true, false, Ec.RMW),
    MAX(1, false, false, Ec.RMW),
    FMAX(1, true, false, Ec.RMW),
    INC(0, false, false, Ec.RMW),
    FINC(0, true, false, Ec.RMW),
    DEC(0, false, false, Ec.RMW),
    FDEC(0, true, false, Ec.RMW),
    AND(1, false, true, Ec.RMW),
    FAND(1, true, true, Ec.RMW),
    OR(1, false, true, Ec.RMW),
    FOR(1, true, true, Ec.RMW),
    XOR(1, false, true, Ec.RMW),
    FXOR(1, true, true, Ec.RMW);

    private static final AtomicOp[] VALUES = values();

    private final int operands;
    private final boolean fetching;
    private final boolean bitwise;
    private final int category;

    AtomicOp(int operands, boolean fetching, boolean bitwise, int category) {
        this.operands = operands;
        this.fetching = fetching;
        this.bitwise = bitwise;
        this.category = category;
    }

    /** How many operands it reads: 0, 1 or 2. */
    public int operands() {
        return operands;
    }

    /** True if it returns the target's previous value (GET, SWAP, and the F-operations). */
    public boolean fetching() {
        return fetching;
    }

    /** True for AND, OR, XOR and their fetching twins, which integer types alone take. */
    public boolean bitwise() {
        return bitwise;
    }

    /** The NBI category that completes it: {@link Ec#PUT} for SET, {@link Ec#GET} for GET, else {@link Ec#RMW}. */
    public int category() {
        return category;
    }

    /** Its fetching twin ({@code GEX_OP_TO_FETCHING}): SET gives SWAP; fetching ones give themselves. */
    public AtomicOp toFetching() {
        if (fetching) {
            return this;
        }
        return this == SET ? SWAP : VALUES[ordinal() + 1];
    }

    /**
     * Its non-fetching twin ({@code GEX_OP_TO_NONFETCHING}): SWAP gives SET; GET has none and throws.
     *
     * @throws IllegalArgumentException for GET
     */
    public AtomicOp toNonFetching() {
        if (!fetching) {
            return this;
        }
        return switch (this) {
            case SWAP -> SET;
            case GET -> throw new IllegalArgumentException("GET has no non-fetching form");
            default -> VALUES[ordinal() - 1];
        };
    }

    static AtomicOp of(int ordinal) {
        return VALUES[ordinal];
    }
}
