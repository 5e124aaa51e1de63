package org.gexj.launch.rendezvous;

import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.PeerFailedException;
import org.gexj.bootstrap.JobSecret;
import org.gexj.bootstrap.TcpBootstrap;
import org.gexj.bootstrap.wire.BootstrapFrame;
import org.gexj.spi.JobHealth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpBootstrapTest {
    private final byte[] secret = JobSecret.random(32);

    private Config config(RendezvousServer server, byte[] key) {
        return Config.of(Map.of("GEX_BOOTSTRAP", server.address(), "GEX_JOB_SECRET", JobSecret.hex(key)));
    }

    @Test
    void allgatherReturnsEveryBlobInRankOrderRepeatedly() throws Exception {
        final int n = 3;
        try (RendezvousServer server = new RendezvousServer(n, secret);
             ExecutorService pool = Executors.newFixedThreadPool(n)) {
            final Future<?>[] ranks = new Future<?>[n];
            for (int r = 0; r < n; r++) {
                final int rank = r;
                ranks[r] = pool.submit(() -> {
                    final TcpBootstrap b = TcpBootstrap.connect(config(server, secret), rank, n, new JobHealth());
                    for (int round = 0; round < 200; round++) {
                        final byte[][] all = b.allgather(("r" + rank + "/" + round).getBytes(StandardCharsets.UTF_8));
                        assertEquals(n, all.length);
                        for (int p = 0; p < n; p++) {
                            assertArrayEquals(("r" + p + "/" + round).getBytes(StandardCharsets.UTF_8), all[p]);
                        }
                        b.barrier();
                    }
                    b.close();
                    return null;
                });
            }
            for (Future<?> f : ranks) {
                f.get(30, TimeUnit.SECONDS);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!server.allFinished() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(server.allFinished(), "every rank said goodbye");
            assertTrue(server.failure() == null, server.failure());
        }
    }

    /**
     * Ranks that say goodbye at the same moment: the launcher tells each the others have closed while their own
     * goodbye is in flight. A rank that closed its socket with that news unread made its kernel reset the connection,
     * and the launcher, reading the reset before the goodbye, failed a job whose ranks all ended well (seen in CI).
     */
    @Test
    void ranksThatSayGoodbyeTogetherEndTheJobWithoutAFailure() throws Exception {
        final int n = 3;
        try (ExecutorService pool = Executors.newFixedThreadPool(n)) {
            for (int job = 0; job < 100; job++) {
                try (RendezvousServer server = new RendezvousServer(n, secret)) {
                    final Future<?>[] ranks = new Future<?>[n];
                    for (int r = 0; r < n; r++) {
                        final int rank = r;
                        ranks[r] = pool.submit(() -> {
                            final TcpBootstrap b = TcpBootstrap.connect(config(server, secret), rank, n,
                                new JobHealth());
                            b.barrier();
                            b.close();
                            return null;
                        });
                    }
                    for (Future<?> f : ranks) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!server.allFinished() && server.failure() == null && System.nanoTime() < deadline) {
                        Thread.sleep(1);
                    }
                    assertTrue(server.failure() == null, "job " + job + ": " + server.failure());
                    assertTrue(server.allFinished(), "job " + job + ": every rank said goodbye");
                }
            }
        }
    }

    /**
     * The same race, made certain with a launcher of the test's own: news written to a rank after its goodbye is read
     * by the rank, not reset by its kernel. Writing twice tells: a closed rank's kernel answers the first write with a
     * reset, and the second write fails.
     */
    @Test
    void aRankReadsWhatTheLauncherSendsAfterItsGoodbyeAndClosesWithoutAReset() throws Exception {
        try (ServerSocket launcher = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ExecutorService pool = Executors.newSingleThreadExecutor()) {
            final Future<String> seen = pool.submit(() -> {
                try (Socket s = launcher.accept()) {
                    final DataInputStream in = new DataInputStream(s.getInputStream());
                    final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    new BootstrapFrame(BootstrapFrame.CHALLENGE, new byte[32]).write(out);
                    BootstrapFrame.read(in);
                    new BootstrapFrame(BootstrapFrame.WELCOME, new byte[0]).write(out);
                    assertEquals(BootstrapFrame.BYE, BootstrapFrame.read(in).type());
                    BootstrapFrame.closed(1).write(out);
                    Thread.sleep(100);
                    BootstrapFrame.closed(2).write(out);
                    return "wrote both";
                } catch (java.io.IOException e) {
                    return e.toString();
                }
            });
            final Config config = Config.of(Map.of("GEX_BOOTSTRAP", "127.0.0.1:" + launcher.getLocalPort(),
                "GEX_JOB_SECRET", JobSecret.hex(secret)));
            final TcpBootstrap rank = TcpBootstrap.connect(config, 0, 3, new JobHealth());
            final long start = System.nanoTime();
            rank.close();
            assertEquals("wrote both", seen.get(10, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5),
                "close waits for the launcher, boundedly");
        }
    }

    /**
     * gexrun --bind: the rendezvous listens on the given address only and names it for GEX_BOOTSTRAP. 127.0.0.2 is a
     * local address on Linux without any set-up, and is not the default 127.0.0.1.
     */
    @Test
    void aRendezvousBoundToAnAddressIsReachedThereAndGivesTheRanksTheirAddress() throws Exception {
        final java.net.InetAddress address = java.net.InetAddress.ofLiteral("127.0.0.2");
        try (RendezvousServer server = new RendezvousServer(1, secret, address)) {
            assertEquals("127.0.0.2:" + server.port(), server.address());
            final TcpBootstrap b = TcpBootstrap.connect(config(server, secret), 0, 1, new JobHealth());
            assertTrue(b.localAddress().isLoopbackAddress(), b.localAddress().toString()); // the route's source
            b.barrier();
            b.close();
            assertThrows(java.io.IOException.class, () -> new Socket("127.0.0.1", server.port()).close(),
                "nothing listens on the default address");
        }
        assertThrows(java.net.BindException.class,
            () -> new RendezvousServer(1, secret, java.net.InetAddress.ofLiteral("192.0.2.1")).close(),
            "an address of no interface here (TEST-NET-1) cannot be bound");
    }

    @Test
    void aConnectionWithoutTheSecretIsRejectedAndTheJobGoesOn() throws Exception {
        try (RendezvousServer server = new RendezvousServer(2, secret);
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            final GexException e = assertThrows(GexException.class,
                () -> TcpBootstrap.connect(config(server, JobSecret.random(32)), 0, 2, new JobHealth()));
            assertTrue(e.getMessage().contains("rejected"), e.getMessage());
            // a raw client that sends garbage instead of HELLO
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                final DataInputStream in = new DataInputStream(s.getInputStream());
                BootstrapFrame.read(in);
                new DataOutputStream(s.getOutputStream()).write(new byte[] {9, 9, 9, 9, 0, 0, 0, 0});
                assertEquals(-1, in.read());
            }
            final Future<byte[][]> a = pool.submit(
                () -> TcpBootstrap.connect(config(server, secret), 0, 2, new JobHealth()).allgather(new byte[] {1}));
            final Future<byte[][]> b = pool.submit(
                () -> TcpBootstrap.connect(config(server, secret), 1, 2, new JobHealth()).allgather(new byte[] {2}));
            assertArrayEquals(new byte[] {2}, a.get(20, TimeUnit.SECONDS)[1]);
            assertArrayEquals(new byte[] {1}, b.get(20, TimeUnit.SECONDS)[0]);
            assertEquals(2, server.rejectedConnections());
            assertTrue(server.failure() == null);
        }
    }

    @Test
    void anAbortOrADeadConnectionFailsTheOtherRanksWaitsNamingTheRank() throws Exception {
        for (boolean crash : new boolean[] {false, true}) {
            try (RendezvousServer server = new RendezvousServer(3, secret);
                 ExecutorService pool = Executors.newFixedThreadPool(3)) {
                final JobHealth h0 = new JobHealth();
                final JobHealth h1 = new JobHealth();
                final Future<TcpBootstrap> r2 = pool.submit(
                    () -> TcpBootstrap.connect(config(server, secret), 2, 3, new JobHealth()));
                final Future<Object> w0 = pool.submit(
                    () -> TcpBootstrap.connect(config(server, secret), 0, 3, h0).allgather(new byte[0]));
                final Future<Object> w1 = pool.submit(
                    () -> TcpBootstrap.connect(config(server, secret), 1, 3, h1).allgather(new byte[0]));
                final TcpBootstrap dying = r2.get(20, TimeUnit.SECONDS);
                final long start = System.nanoTime();
                if (crash) {
                    dying.abortWithoutNotice();
                } else {
                    dying.abort("test abort");
                }
                for (Future<Object> w : java.util.List.of(w0, w1)) {
                    final var e = assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> w.get(10, TimeUnit.SECONDS));
                    final PeerFailedException p = assertInstanceOf(PeerFailedException.class, e.getCause());
                    assertEquals(2, p.rank(), p.getMessage());
                }
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
                assertTrue(h0.failed() && h1.failed());
                assertEquals(2, server.failedRank());
            }
        }
    }

    @Test
    void aCollectiveThatAnotherRankNeverJoinsTimesOutAndEndsTheJob() throws Exception {
        try (RendezvousServer server = new RendezvousServer(2, secret);
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            final Config config = Config.of(Map.of("GEX_BOOTSTRAP", server.address(), "GEX_JOB_SECRET",
                JobSecret.hex(secret), TcpBootstrap.COLLECTIVE_TIMEOUT, "1"));
            final JobHealth h1 = new JobHealth();
            final Future<TcpBootstrap> r1 = pool.submit(() -> TcpBootstrap.connect(config, 1, 2, h1));
            final TcpBootstrap r0 = TcpBootstrap.connect(config, 0, 2, new JobHealth());
            r1.get(20, TimeUnit.SECONDS);
            final long start = System.nanoTime();
            final var e = assertThrows(org.gexj.GexTimeoutException.class, () -> r0.allgather(new byte[] {1}));
            final double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(seconds >= 0.9 && seconds < 10, "timed out after " + seconds + " s");
            assertTrue(e.getMessage().contains(TcpBootstrap.COLLECTIVE_TIMEOUT), e.getMessage());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!h1.failed() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(h1.failed(), "the rank that never joined learns the job failed");
            assertEquals(0, h1.failure().rank());
        }
    }

    /**
     * The launcher speaks first, so a connection whose last handshake ACK was lost (a lossy link) is never accepted and
     * its CHALLENGE never comes: a rank that waited on it for its whole join timeout failed a CI run. A rank gives up
     * on a silent connection after a few seconds and tries a fresh one, and still names GEX_BOOTSTRAP_JOIN_TIMEOUT
     * when that runs out.
     */
    @Test
    void aRankTriesAFreshConnectionWhenTheChallengeDoesNotComeAndNamesTheJoinTimeoutWhenItRunsOut() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             ExecutorService pool = Executors.newFixedThreadPool(1)) {
            final Future<Integer> launcher = pool.submit(() -> {
                int welcomed = 0;
                try (Socket silent = fake.accept()) { // held open, never answered
                    for (int connection = 0; connection < 2; connection++) {
                        try (Socket s = fake.accept()) {
                            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                            new BootstrapFrame(BootstrapFrame.CHALLENGE, JobSecret.random(32)).write(out);
                            final DataInputStream in = new DataInputStream(s.getInputStream());
                            if (connection == 0 && BootstrapFrame.read(in).type() == BootstrapFrame.HELLO) {
                                new BootstrapFrame(BootstrapFrame.WELCOME, new byte[0]).write(out);
                                welcomed++;
                                in.read(); // until the rank's close
                            } else {
                                Thread.sleep(5_000); // never answers this HELLO: the rank's join timeout ends it
                            }
                        } catch (java.io.IOException e) {
                            // the rank that gave up closed its end
                        }
                    }
                }
                return welcomed;
            });
            final String address = "127.0.0.1:" + fake.getLocalPort();
            final long first = System.nanoTime();
            final TcpBootstrap patient = TcpBootstrap.connect(
                Config.of(Map.of("GEX_BOOTSTRAP", address, "GEX_JOB_SECRET", JobSecret.hex(secret))), 0, 1,
                new JobHealth());
            final double joined = (System.nanoTime() - first) / 1e9;
            assertTrue(joined >= 2.5 && joined < 10, "joined through a fresh connection after " + joined + " s");
            patient.close();
            final long start = System.nanoTime();
            final GexException e = assertThrows(GexException.class, () -> TcpBootstrap.connect(
                Config.of(Map.of("GEX_BOOTSTRAP", address, "GEX_JOB_SECRET", JobSecret.hex(secret),
                    TcpBootstrap.JOIN_TIMEOUT, "1")), 0, 1, new JobHealth()));
            final double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(seconds >= 0.9 && seconds < 2.9, "gave up after " + seconds + " s");
            assertTrue(e.getMessage().contains(TcpBootstrap.JOIN_TIMEOUT + "=1 s"), e.getMessage());
            assertEquals(1, launcher.get(20, TimeUnit.SECONDS), "the rank was welcomed on its second connection");
        }
    }
}
