package org.gexj.testrma;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * testvis's {@code -t} timing of one section (GASNet's TIME_DECL, TIMED_PUT, TIMED_GET and TIME_OUTPUT): each timed
 * blocking put and get's size and {@link System#nanoTime()} duration, printed as the bandwidth lines and the data size
 * line after the section.
 */
final class VisTiming {
    private static final double MIB = 1024 * 1024;
    /** The ticks are nanoseconds. */
    private static final double TICKS_PER_SEC = 1e9;

    private final Stats put = new Stats();
    private final Stats get = new Stats();

    /** One direction's sums, minima and maxima (GASNet's putinfo, getinfo). */
    private static final class Stats {
        long iters;
        /** uint64_t, initially (uint64_t)-1. */
        double minsz = 0x1p64;
        long maxsz;
        long sumsz;
        long sumtm;
        double minbw = 1e300;
        double maxbw;

        void run(long sz, Runnable op) {
            final long begin = System.nanoTime();
            op.run();
            final long tm = System.nanoTime() - begin;
            sumsz += sz;
            sumtm += tm;
            if (sz > 0 && sz < minsz) {
                minsz = sz;
            }
            maxsz = Math.max(maxsz, sz);
            final double bw = (double) sz / tm;
            if (sz > 0 && bw < minbw) {
                minbw = bw;
            }
            if (tm > 0 && bw > maxbw) {
                maxbw = bw;
            }
            iters++;
        }

        /** _TIME_OUTPUT's line. */
        String line(String name) {
            final double totaldata = sumsz / MIB;
            return String.format(Locale.ROOT, "%s bandwidth (MB/s): %s avg, %s max, %s min", name,
                c(8, 6, totaldata / sumtm * TICKS_PER_SEC), c(8, 6, maxbw * TICKS_PER_SEC / MIB),
                c(8, 6, minbw * TICKS_PER_SEC / MIB));
        }
    }

    /** TIMED_PUT: runs and times a blocking put of {@code sz} bytes. */
    void put(long sz, Runnable op) {
        put.run(sz, op);
    }

    /** TIMED_GET. */
    void get(long sz, Runnable op) {
        get.run(sz, op);
    }

    /** TIME_OUTPUT(flavor): with {@code -t}, the put and get bandwidths and the puts' sizes, on every active rank. */
    void output(VisRun run, String flavor) {
        if (!run.showTiming) {
            return;
        }
        run.msg(put.line("put" + flavor));
        run.msg(get.line("get" + flavor));
        run.msg(String.format(Locale.ROOT, "data size: %sMB total, %sKB avg, %sKB min, %sKB max",
            c(8, 3, put.sumsz / MIB), c(8, 3, put.sumsz / 1024.0 / put.iters), c(8, 3, put.minsz / 1024.0),
            c(8, 3, put.maxsz / 1024.0)));
    }

    /**
     * A double as C's printf {@code %W.Pf} prints it: the exact binary value rounded half to even (Java's Formatter
     * rounds half up: 18.5625 became 18.563 where GASNet prints 18.562), inf and -nan included.
     */
    private static String c(int width, int precision, double v) {
        final String text;
        if (Double.isNaN(v)) {
            text = "-nan";
        } else if (Double.isInfinite(v)) {
            text = v > 0 ? "inf" : "-inf";
        } else {
            text = new BigDecimal(v).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        }
        return " ".repeat(Math.max(0, width - text.length())) + text;
    }
}
