package org.gexj.bench;

import org.gexj.Client;
import org.gexj.launch.InProcessJob;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A 2-rank job inside the benchmark JVM: rank 1 is a thread that only polls (runs handlers), rank 0's client is handed
 * to the benchmark thread. On smp the rings and segments are the real /dev/shm files, so the data path is the one
 * separate processes use; only the process boundary is missing.
 */
final class TwoRankJob implements AutoCloseable {
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread job;
    private volatile boolean stop;
    final Client client;

    /** An smp job. @param setup run on both ranks before the job starts (handler registration, segment attach) */
    TwoRankJob(Consumer<Client> setup) throws Exception {
        this(Map.of("GEX_CONDUIT", "smp"), setup);
    }

    /** @param env the job's settings, the conduit first of all */
    TwoRankJob(Map<String, String> env, Consumer<Client> setup) throws Exception {
        final CompletableFuture<Client> rank0 = new CompletableFuture<>();
        job = new Thread(() -> InProcessJob.run(2, Duration.ofHours(2), env, c -> {
            setup.accept(c);
            c.barrier();
            if (c.rank() == 0) {
                rank0.complete(c);
                done.await();
            } else {
                while (!stop) {
                    c.poll();
                }
            }
        }), "two-rank-job");
        job.setDaemon(true);
        job.start();
        client = rank0.get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        done.countDown();
        job.join(30_000);
    }
}
