package org.gexj;

/** Flags for AM and RMA calls ({@code GEX_FLAG_*}); combine with |. */
public final class Flags {
    /** Return a non-zero code instead of waiting for resources; nothing is sent then. */
    public static final int IMMEDIATE = 1;

    private Flags() {
    }

    public static void check(int flags) {
        if ((flags & ~IMMEDIATE) != 0) {
            throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags)
                + " has bits outside Flags.IMMEDIATE (0x1)");
        }
    }
}
