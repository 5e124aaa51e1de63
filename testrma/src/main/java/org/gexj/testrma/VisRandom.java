package org.gexj.testrma;

/**
 * test.h's random numbers as testvis uses them: GASNet's default LCG64 generator ({@code _test_rand}) with its
 * multiplier, increment and high-word mixing, so that a seed gives the same sequence as in GASNet's tests.
 */
final class VisRandom {
    private long state;

    /** TEST_SRAND(seed): C converts the int seed to the 64-bit state with sign extension. */
    VisRandom(int seed) {
        state = seed;
    }

    /** TEST_RAND(lo, hi): uniform in [lo, hi]; GASNet asserts {@code lo <= hi}, here it is checked always. */
    long rand(long lo, long hi) {
        if (lo > hi) {
            throw new IllegalStateException("TEST_RAND(" + lo + ", " + hi + "): empty range");
        }
        state = state * 2862933555777941757L + 3037000493L;
        final long val = state ^ (state >>> 32); // mixes the weaker low bits with the high word
        return Long.remainderUnsigned(val, hi - lo + 1) + lo;
    }

    /** TEST_RAND_PICK(a, b) draws one number: true picks {@code a}. */
    boolean pickFirst() {
        return rand(0, 1) == 1;
    }

    /** TEST_RAND_ONEIN(p): true one time in p. */
    boolean oneIn(long p) {
        return rand(1, p) == 1;
    }

    /** SHUFFLE_ARRAY: GASNet's shuffle of the first {@code count} entries. */
    void shuffle(long[] list, int count) {
        for (int i = 0; i < count; i++) {
            final int a = (int) rand(i, count - 1);
            final long tmp = list[a];
            list[a] = list[i];
            list[i] = tmp;
        }
    }

    /** SHUFFLE_LIST of a vector list: the (offset, length) pairs move together. */
    void shuffle(long[] offsets, long[] lengths, int count) {
        for (int i = 0; i < count; i++) {
            final int a = (int) rand(i, count - 1);
            final long off = offsets[a];
            final long len = lengths[a];
            offsets[a] = offsets[i];
            lengths[a] = lengths[i];
            offsets[i] = off;
            lengths[i] = len;
        }
    }
}
