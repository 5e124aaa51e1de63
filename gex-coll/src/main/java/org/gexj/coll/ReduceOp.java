package org.gexj.coll;

/**
 * The built-in reduction operators ({@code GEX_OP_ADD} ... {@code GEX_OP_XOR}), each associative and commutative.
 * Integers wrap as the C types do; unsigned types compare unsigned; {@link #AND}, {@link #OR} and {@link #XOR} take
 * integer types only. Floating-point results depend on the order of combination, which is fixed by the team's size
 * and the collective's root, so the same call gives the same bits every time in a run.
 */
public enum ReduceOp {
    ADD, MULT, MIN, MAX, AND, OR, XOR;

    /** Whether the operator takes floating-point types. */
    public boolean takesFloatingPoint() {
        return this != AND && this != OR && this != XOR;
    }
}
