package org.gexj.ofi;

import org.gexj.Config;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over tcp;ofi_rxm a waiting thread does not yield between polls while the completion queue has a file descriptor to
 * block on ({@code GEX_OFI_CQ_WAIT=fd}, the default): every poll enters the kernel, and the descriptor wakes it. With
 * {@code GEX_OFI_CQ_WAIT=none} its park is a plain sleep that serves no peer, so it yields first, as on other conduits.
 */
class OfiWaitYieldsTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void noYieldsWhereTheQueueHasADescriptorToWaitOn() throws Exception {
        final List<OfiConduit> ranks = open(Map.of());
        try {
            for (OfiConduit c : ranks) {
                assertFalse(c.yieldsWhileWaiting(), "tcp;ofi_rxm with the CQ's file descriptor");
            }
        } finally {
            close(ranks);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void yieldsWhereItOnlyParks() throws Exception {
        final List<OfiConduit> ranks = open(Map.of("GEX_OFI_CQ_WAIT", "none"));
        try {
            for (OfiConduit c : ranks) {
                assertTrue(c.yieldsWhileWaiting(), "tcp;ofi_rxm without a wait object");
            }
        } finally {
            close(ranks);
        }
    }

    /** Closes both ranks at once: each close exchanges a message with the other. */
    private static void close(List<OfiConduit> ranks) throws Exception {
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            final List<CompletableFuture<Void>> closing = new ArrayList<>();
            for (OfiConduit c : ranks) {
                closing.add(CompletableFuture.runAsync(c::close, threads));
            }
            for (CompletableFuture<Void> f : closing) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdown();
        }
    }

    /** Opens both ranks of a job, a thread each: opening is collective. */
    private static List<OfiConduit> open(Map<String, String> settings) throws Exception {
        final Map<String, String> env = new HashMap<>(settings);
        env.put("GEX_OFI_PROVIDER", "tcp;ofi_rxm");
        final String jobId = "gexjofiyields-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        final ThreadBootstrap[] bootstraps = ThreadBootstrap.job(2);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            final List<CompletableFuture<OfiConduit>> opening = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                final int rank = r;
                opening.add(CompletableFuture.supplyAsync(() -> OfiConduit.open(new ConduitContext(rank, 2, jobId,
                    bootstraps[rank], Config.of(env), new JobHealth())), threads));
            }
            final List<OfiConduit> ranks = new ArrayList<>();
            for (CompletableFuture<OfiConduit> f : opening) {
                ranks.add(f.get(30, TimeUnit.SECONDS));
            }
            return ranks;
        } finally {
            threads.shutdown();
        }
    }
}
