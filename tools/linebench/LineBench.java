import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Locale;

/**
 * The floor under testam's flood lines, without GEX/J: one thread writes {@code N} one-cache-line records into a ring,
 * another reads them, and each window of N records is timed until the reader has seen the last one. Prints the
 * spread of single windows (testam times one window per line) in ns per record.
 *
 * <p>Run it several times, alternating with {@code bin/gexrun -n 2 testam 1000 4096 A}: on a VM whose host moves the
 * two vCPUs between cores the median moves between JVM runs too, and a 1000-record window moves with it.
 *
 * <pre>$JAVA_HOME/bin/java tools/linebench/LineBench.java [records per window, default 1000]</pre>
 */
public final class LineBench {
    private static final int LINES = 1 << 14;
    private static final int LONGS_PER_LINE = 8;
    private static final int WINDOWS = 400;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private static final long[] RING = new long[LINES * LONGS_PER_LINE];
    private static volatile long seen;
    private static volatile boolean done;

    public static void main(String[] args) throws InterruptedException {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        final Thread reader = new Thread(LineBench::read, "reader");
        reader.setDaemon(true);
        reader.start();
        long seq = 1;
        final long[] nanos = new long[WINDOWS];
        for (int w = 0; w < WINDOWS; w++) {
            final long start = System.nanoTime();
            for (int k = 0; k < n; k++, seq++) {
                final int i = slot(seq);
                RING[i + 1] = k;
                SLOT.setRelease(RING, i, seq);
            }
            while (seen != seq - 1) {
                Thread.onSpinWait();
            }
            nanos[w] = System.nanoTime() - start;
            Thread.sleep(0, 100_000);
        }
        done = true;
        // the first half warms the JIT up
        final long[] timed = Arrays.copyOfRange(nanos, WINDOWS / 2, WINDOWS);
        Arrays.sort(timed);
        final int last = timed.length - 1;
        System.out.printf(Locale.ROOT,
            "%d-record windows, ns/record: min %.1f  p10 %.1f  median %.1f  p90 %.1f  max %.1f%n",
            n, per(timed[0], n), per(timed[last / 10], n), per(timed[last / 2], n), per(timed[last * 9 / 10], n),
            per(timed[last], n));
    }

    private static void read() {
        long seq = 1;
        while (!done) {
            if ((long) SLOT.getAcquire(RING, slot(seq)) == seq) {
                seen = seq++;
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private static int slot(long seq) {
        return (int) (seq & (LINES - 1)) * LONGS_PER_LINE;
    }

    private static double per(long nanos, int n) {
        return nanos / (double) n;
    }
}
