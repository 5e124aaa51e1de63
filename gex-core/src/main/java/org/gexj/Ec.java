package org.gexj;

/** Event categories for NBI test/wait, as bit masks ({@code GEX_EC_*}). */
public final class Ec {
    public static final int AM = 1;
    public static final int PUT = 2;
    public static final int GET = 4;
    /** Remote atomics other than SET (a put) and GET (a get): {@code GEX_EC_RMW}. */
    public static final int RMW = 8;
    public static final int ALL = AM | PUT | GET | RMW;

    static final int COUNT = 4;

    private Ec() {
    }

    /** Index 0..3 of a single-category mask. */
    public static int index(int category) {
        return switch (category) {
            case AM -> 0;
            case PUT -> 1;
            case GET -> 2;
            case RMW -> 3;
            default -> throw new IllegalArgumentException("event category " + category
                + " is not one of Ec.AM (1), Ec.PUT (2), Ec.GET (4), Ec.RMW (8)");
        };
    }

    public static void checkMask(int mask) {
        if (mask == 0 || (mask & ~ALL) != 0) {
            throw new IllegalArgumentException("event category mask " + mask
                + " must be a non-empty subset of Ec.ALL (15)");
        }
    }
}
