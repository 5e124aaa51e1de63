package org.gexj;

/** Event categories for NBI test/wait, as bit masks ({@code GEX_EC_*}). */
public final class Ec {
    public static final int AM = 1;
    public static final int PUT = 2;
    public static final int GET = 4;
    public static final int ALL = AM | PUT | GET;

    static final int COUNT = 3;

    private Ec() {
    }

    /** Index 0..2 of a single-category mask. */
    public static int index(int category) {
        return switch (category) {
            case AM -> 0;
            case PUT -> 1;
            case GET -> 2;
            default -> throw new IllegalArgumentException("event category " + category
                + " is not one of Ec.AM (1), Ec.PUT (2), Ec.GET (4)");
        };
    }

    public static void checkMask(int mask) {
        if (mask == 0 || (mask & ~ALL) != 0) {
            throw new IllegalArgumentException("event category mask " + mask
                + " must be a non-empty subset of Ec.ALL (7)");
        }
    }
}
