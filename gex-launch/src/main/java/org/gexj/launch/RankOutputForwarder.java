package org.gexj.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Copies the ranks' stdout and stderr to the launcher's, whole lines (or pieces ended by a carriage return) at a time,
 * and prints the launcher's own messages
 * between those lines. With inherited descriptors every process writes straight to the terminal, and a JVM prints
 * {@code Exception in thread "main" } and the exception in separate writes: a launcher line landing between them is
 * no longer a line of its own (mpirun forwards output line by line for the same reason).
 */
final class RankOutputForwarder {
    /** How long {@link #drain} waits for a rank's last output after it exited (a grandchild may hold the pipe). */
    private static final long DRAIN_MS = 2000;
    /** A rank writing without newlines is copied in pieces of this size, so the launcher's memory stays bounded. */
    private static final int MAX_LINE = 1 << 16;

    private final PrintStream out;
    private final PrintStream err;
    private final List<Thread> copiers = new ArrayList<>();

    RankOutputForwarder(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Starts copying a started rank's stdout and stderr. */
    void forward(int rank, Process process) {
        copiers.add(copier(rank, "out", process.getInputStream(), out));
        copiers.add(copier(rank, "err", process.getErrorStream(), err));
    }

    /** One launcher message on stderr, never inside a rank's line. */
    void launcherLine(String line) {
        synchronized (this) {
            err.println(line);
            err.flush();
        }
    }

    /** Waits (bounded) until every rank's output has been copied. */
    void drain() {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MS);
        for (Thread t : copiers) {
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Thread copier(int rank, String which, InputStream in, PrintStream to) {
        final Thread t = new Thread(() -> copyLines(in, to), "gexrun-rank" + rank + "-" + which);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void copyLines(InputStream in, PrintStream to) {
        final byte[] chunk = new byte[8192];
        byte[] pending = new byte[8192];
        int held = 0;
        try (in) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    // a carriage return ends a piece too: a progress line rewritten in place goes out at once
                    if (chunk[i] == '\n' || chunk[i] == '\r') {
                        synchronized (this) {
                            to.write(pending, 0, held);
                            to.write(chunk, start, i + 1 - start);
                            to.flush();
                        }
                        held = 0;
                        start = i + 1;
                    }
                }
                final int rest = n - start;
                if (held + rest > MAX_LINE) {
                    synchronized (this) {
                        to.write(pending, 0, held);
                        to.flush();
                    }
                    held = 0;
                }
                if (held + rest > pending.length) {
                    pending = Arrays.copyOf(pending, Math.max(pending.length * 2, held + rest));
                }
                System.arraycopy(chunk, start, pending, held, rest);
                held += rest;
            }
        } catch (IOException e) {
            // the rank's end of the pipe went away with the rank: what was read is printed below
        }
        if (held > 0) {
            synchronized (this) {
                to.write(pending, 0, held);
                to.println();
                to.flush();
            }
        }
    }
}
