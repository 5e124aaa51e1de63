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
    /** For the add family (ADD, SUB, INC, DEC and twins), what the operand is multiplied by; else 0. */
    private final int addScale;
    /** For INC and DEC and their twins, what is added (1 or -1); else 0. */
    private final int addConstant;
    /** True for the add family: a field, not a test, so that callers' {@code &} makes one branch. */
    private final boolean adds;

    AtomicOp(int operands, boolean fetching, boolean bitwise, int category) {
        this.operands = operands;
        this.fetching = fetching;
        this.bitwise = bitwise;
        this.category = category;
        this.addScale = switch (name()) {
            case "ADD", "FADD" -> 1;
            case "SUB", "FSUB" -> -1;
            default -> 0;
        };
        this.addConstant = switch (name()) {
            case "INC", "FINC" -> 1;
            case "DEC", "FDEC" -> -1;
            default -> 0;
        };
        this.adds = (addScale | addConstant) != 0;
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

    /** True for ADD, SUB, INC, DEC and their fetching twins: on an integer, one locked add of {@link #addend}. */
    boolean adds() {
        return adds;
    }

    /** What an operation of the add family adds, for the operand {@code a}; wraps as the integer type does. */
    long addend(long a) {
        return addScale * a + addConstant;
    }

    /** As {@link #addend(long)}, for a floating-point operand: {@code a}, {@code -a}, 1 or -1, each exact. */
    double addend(double a) {
        // not addScale * a + addConstant: that turns -0.0 into +0.0, and 0 * a is NaN for an infinite a INC ignores
        return addScale != 0 ? addScale * a : addConstant;
    }

    static AtomicOp of(int ordinal) {
        return VALUES[ordinal];
    }
}
