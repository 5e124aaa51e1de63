package org.gexj.am;

import org.gexj.am.wire.AmFrameFlyweight;

/** The int32 args of a delivered AM ({@code gex_AM_Arg_t}); a view valid only during the handler. */
public final class Args {
    private AmFrameFlyweight frame;
    private int count;
    private boolean valid;

    void wrap(AmFrameFlyweight frame) {
        if (this.frame != frame) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            this.frame = frame;
        }
        this.count = frame.nargs();
        this.valid = true;
    }

    void invalidate() {
        valid = false;
    }

    public int count() {
        return count;
    }

    public int get(int index) {
        if (!valid) {
            throw new IllegalStateException("AM args are valid only during their handler");
        }
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("arg index " + index + " outside [0, " + count + ")");
        }
        return frame.arg(index);
    }

    /**
     * Copies the args into {@code dst} (at least {@link #count()} long) and returns the count.
     *
     * @throws IndexOutOfBoundsException if {@code dst} is shorter than {@link #count()} (nothing is copied)
     */
    public int copyTo(int[] dst) {
        if (valid && dst.length < count) {
            throw new IndexOutOfBoundsException("destination array of length " + dst.length + " holds fewer than the "
                + count + " args");
        }
        for (int i = 0; i < count; i++) {
            dst[i] = get(i);
        }
        return count;
    }
}
