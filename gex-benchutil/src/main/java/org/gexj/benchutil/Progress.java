package org.gexj.benchutil;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress line for long benchmark runs (testam, testqueue): on stderr, rewritten in place with a carriage return,
 * at most a few times a second, and cleared at the end, so that the results on stdout stay exactly GASNet's. Shown
 * by rank 0 only, when {@code GEX_PROGRESS=1}; gexrun sets that for its ranks when its own stderr is a terminal (the
 * ranks' stderr is a pipe to it), and a user may set {@code GEX_PROGRESS} to 0 or 1 to choose.
 */
public final class Progress {
    /** The environment variable: 1 shows the line, 0 hides it. */
    public static final String VARIABLE = "GEX_PROGRESS";
    private static final long INTERVAL_NANOS = 250_000_000L;

    private final PrintStream err;
    private final boolean enabled;
    private long lastAt;
    private int lastLength;

    Progress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    /** Rank {@code rank}'s progress line: shown by rank 0 when {@code GEX_PROGRESS=1}, else a no-op. */
    public static Progress forRank(int rank) {
        return new Progress(System.err, rank == 0 && "1".equals(System.getenv(VARIABLE)));
    }

    /** A progress line that never shows: for warm-up passes. */
    public static Progress none() {
        return new Progress(System.err, false);
    }

    public boolean enabled() {
        return enabled;
    }

    /** Whether {@link #update} would show a line now: lets a caller skip building its text per iteration. */
    public boolean due() {
        return enabled && (lastLength == 0 || System.nanoTime() - lastAt >= INTERVAL_NANOS);
    }

    /**
     * Shows {@code what} and the fraction done, unless a line went out less than a quarter second ago. Cheap when
     * disabled or throttled: callers may call it per iteration.
     */
    public void update(String what, double fraction) {
        if (!enabled) {
            return;
        }
        final long now = System.nanoTime();
        if (lastLength > 0 && now - lastAt < INTERVAL_NANOS) {
            return;
        }
        lastAt = now;
        final String line = String.format(Locale.ROOT, "%s %3d%%", what,
            Math.round(100 * Math.max(0, Math.min(1, fraction))));
        // padded over a longer previous line; the carriage return leaves the cursor where the next one starts
        err.print(line + " ".repeat(Math.max(0, lastLength - line.length())) + "\r");
        err.flush();
        lastLength = line.length();
    }

    /** Clears the line, so that whatever the terminal shows next starts on a clean one. */
    public void done() {
        if (enabled && lastLength > 0) {
            err.print(" ".repeat(lastLength) + "\r");
            err.flush();
            lastLength = 0;
        }
    }
}
