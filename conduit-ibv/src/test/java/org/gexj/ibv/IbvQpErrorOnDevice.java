package org.gexj.ibv;

import org.gexj.Client;
import org.gexj.Lc;
import org.gexj.PeerFailedException;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.ibv.ffm.Verbs;
import org.gexj.ibv.ffm.VerbsLayouts;
import org.gexj.ibv.ffm.VerbsQp;
import org.gexj.launch.InProcessJob;
import org.gexj.spi.Conduit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real verbs errors on the RC queue pair toward a peer end the job with an error naming that peer and the verbs
 * status, and nothing hangs. Two ranks as threads of this JVM ({@link InProcessJob}) on a real device (Soft-RoCE in
 * the guest of tools/rxe-vm: {@code tools/rxe-vm/run-junit.sh conduit-ibv IbvQpErrorOnDevice}; not run by the host
 * suite, which has no device). Once both ranks have exchanged AMs, one QP of the pair between them is moved to the
 * error state with {@code ibv_modify_qp}, as a device does on a fatal error, and rank 0 sends to rank 1:
 * <ul>
 *   <li>rank 1's QP in error: rxe drops what arrives for it, so rank 0's QP retries (67 ms apart) and its send
 *   completes with {@code IBV_WC_RETRY_EXC_ERR}, as toward a peer that died without closing. rxe takes a retry count
 *   of 7 for "for ever" (rxe_comp.c: {@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}; the IB spec gives
 *   7 that meaning for RNR retries only), so this needs the QPs' retry count at most 6: with 7 nothing completes
 *   and only the peer timeout ({@code GEX_IBV_TIMEOUT}, 30 s) ends the job, without the verbs status;</li>
 *   <li>rank 0's own QP in error: its send is flushed ({@code IBV_WC_WR_FLUSH_ERR}) or refused at the post.</li>
 * </ul>
 * Sending a Medium (larger than the inline size, so the work request carries the engine's context) and a Short
 * (inline, context 0, which the engine can attribute only through the NIC's QP-to-rank table). Rank 0's call must
 * throw {@link PeerFailedException} naming rank 1 within {@value #BOUND_SECONDS} s, its text the verbs status. Rank 1
 * stays alive and silent meanwhile (it neither polls nor closes), so no launcher or bootstrap notice can end the job
 * first: only the device reports the failure.
 *
 * <p>The QP is reached through the objects' fields (test-only): {@code Client}'s conduit, the {@link IbvConduit}'s
 * {@link IbvNic}, and its QPs by rank, each found by type.
 */
class IbvQpErrorOnDevice {
    /** From the send after the break to rank 0's exception; retries exhaust after about 0.5 s. */
    private static final long BOUND_SECONDS = 15;
    /** {@code IBV_WC_RETRY_EXC_ERR} of {@code enum ibv_wc_status}. */
    private static final int IBV_WC_RETRY_EXC_ERR = 12;
    private static final int WARM_UP = 8;
    private static final int MEDIUM = 4096;

    @ParameterizedTest(name = "{0}''s QP in error, rank 0 sends a {1}")
    @CsvSource({"rank 1, medium", "rank 1, short", "rank 0, medium"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aQpInErrorEndsTheJobNamingThePeerAndTheVerbsStatus(String broken, String send) throws Exception {
        final boolean remote = broken.equals("rank 1");
        final CountDownLatch warm = new CountDownLatch(1);
        final CountDownLatch reported = new CountDownLatch(1);
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final AtomicReference<Double> seconds = new AtomicReference<>();
        final AssertionError job = assertThrows(AssertionError.class, () -> InProcessJob.run(2, Duration.ofMinutes(4),
            Map.of("GEX_CONDUIT", "ibv"), client -> {
                final Am am = Am.of(client);
                final AtomicInteger arrived = new AtomicInteger();
                final int medium = am.register(AmHandler.mediumRequest(0, (t, p, a) -> arrived.incrementAndGet()));
                final int shortHandler = am.register(AmHandler.shortRequest(0, (t, a) -> arrived.incrementAndGet()));
                final MemorySegment buffer = Arena.ofAuto().allocate(MEDIUM, 64);
                client.barrier();
                // both directions carry AMs before the break: the QPs work
                for (int i = 0; i < WARM_UP; i++) {
                    am.requestMedium(1 - client.rank(), medium, buffer, 0, MEDIUM, Lc.NOW);
                }
                while (arrived.get() < WARM_UP) {
                    client.poll();
                }
                client.barrier();
                if (client.rank() == 1) {
                    if (remote) {
                        toError(qpToward(client, 0));
                    }
                    warm.countDown();
                    // silent until rank 0 has reported: a poll would read this rank's own flushed sends
                    assertTrue(reported.await(2, TimeUnit.MINUTES), "rank 0 reported nothing in 2 min");
                    return;
                }
                assertTrue(warm.await(2, TimeUnit.MINUTES), "rank 1 did not break its QP in 2 min");
                if (!remote) {
                    toError(qpToward(client, 1));
                }
                final long sentAt = System.nanoTime();
                try {
                    if (send.equals("medium")) {
                        am.requestMedium(1, medium, buffer, 0, MEDIUM, Lc.NOW); // > the inline size: signaled
                    } else {
                        am.requestShort(1, shortHandler); // inline, context 0
                    }
                    final long deadline = sentAt + TimeUnit.SECONDS.toNanos(60);
                    while (System.nanoTime() - deadline < 0) {
                        client.poll();
                    }
                    fail("no error within 60 s of a send toward a QP in error");
                } catch (RuntimeException e) {
                    seconds.set((System.nanoTime() - sentAt) / 1e9);
                    failure.set(e);
                    throw e;
                } finally {
                    reported.countDown();
                }
            }));
        final RuntimeException e = failure.get();
        assertNotNull(e, "rank 0 saw no error; the job: " + job);
        System.out.printf("ibv: %s's QP in error, rank 0 sent a %s: %.2f s to %s%n", broken, send, seconds.get(), e);
        final PeerFailedException peerFailed = assertInstanceOf(PeerFailedException.class, e,
            "rank 0's error is a peer failure");
        assertEquals(1, peerFailed.rank(), e.toString());
        assertTrue(e.getMessage().contains("to rank 1"), "names the peer: " + e);
        if (remote) {
            final String status = Verbs.wcStatusText(IBV_WC_RETRY_EXC_ERR);
            assertTrue(e.getMessage().contains(status + " (ibv_wc_status " + IBV_WC_RETRY_EXC_ERR + ","),
                "names the verbs status '" + status + "': " + e);
        } else {
            final String flushed = Verbs.wcStatusText(Verbs.IBV_WC_WR_FLUSH_ERR);
            assertTrue(e.getMessage().contains(flushed) || e.getMessage().contains("Invalid argument"),
                "names the verbs status '" + flushed + "' or the post's errno: " + e);
        }
        assertTrue(seconds.get() < BOUND_SECONDS, "reported " + seconds.get() + " s after the send: " + e);
    }

    /** {@code ibv_modify_qp} to IBV_QPS_ERR. */
    private static void toError(MemorySegment qp) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment attr = arena.allocate(VerbsLayouts.IBV_QP_ATTR);
            attr.set(JAVA_INT, VerbsLayouts.offset(VerbsLayouts.IBV_QP_ATTR, "qp_state"), Verbs.IBV_QPS_ERR);
            VerbsQp.modify(qp, attr, Verbs.IBV_QP_STATE, "ERR");
        }
    }

    /** The RC QP of {@code client}'s ibv conduit toward {@code peer}. */
    private static MemorySegment qpToward(Client client, int peer) throws ReflectiveOperationException {
        final Conduit conduit = (Conduit) only(Client.class, Conduit.class).get(client);
        final IbvNic nic = (IbvNic) only(IbvConduit.class, IbvNic.class).get(conduit);
        final MemorySegment[] qps = (MemorySegment[]) only(IbvNic.class, MemorySegment[].class).get(nic);
        assertEquals(client.size(), qps.length, "a QP per rank");
        // on demand, the warm-up's traffic made it
        assertNotNull(qps[peer], "rank " + client.rank() + " has no QP toward rank " + peer + " after the warm-up");
        return qps[peer];
    }

    /** The one field of {@code owner} of type {@code type}, made accessible. */
    private static Field only(Class<?> owner, Class<?> type) {
        final List<Field> fields = Arrays.stream(owner.getDeclaredFields()).filter(f -> f.getType() == type).toList();
        if (fields.size() != 1) {
            throw new IllegalStateException(owner.getName() + " has " + fields.size() + " fields of type "
                + type.getName() + ", the test needs exactly one: " + fields);
        }
        final Field f = fields.get(0);
        f.setAccessible(true);
        return f;
    }
}
