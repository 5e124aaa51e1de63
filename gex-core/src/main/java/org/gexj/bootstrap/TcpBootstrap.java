package org.gexj.bootstrap;

import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.PeerFailedException;
import org.gexj.bootstrap.wire.BootstrapFrame;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.JobHealth;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A rank's side of the bootstrap: a TCP connection to the launcher's rendezvous (gex-launch's {@code RendezvousServer},
 * which gexrun and {@code InProcessJob} serve).
 *
 * <p>A daemon reader thread receives allgather results and ABORT messages. An ABORT, or the connection ending
 * without this rank having closed it, fails the job's {@link JobHealth}: waits everywhere then throw
 * {@link PeerFailedException} naming the dead rank. With {@code GEX_EXIT_ON_FAILURE} (set by gexrun) the reader also
 * ends the process after {@code GEX_FAILURE_GRACE_MS}, so a rank that is computing and never calls GEX/J still exits.
 */
public final class TcpBootstrap implements Bootstrap {
    private static final byte[][] FAILED = new byte[0][];

    private final int rank;
    private final int size;
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    /** Seconds a bootstrap collective (attachSegment's exchange, init, exit) waits for the other ranks. */
    public static final String COLLECTIVE_TIMEOUT = "GEX_BOOTSTRAP_TIMEOUT";
    /**
     * Seconds a rank keeps trying to join: connecting, then waiting for the launcher's challenge and welcome. Long
     * enough for TCP to retransmit over a lossy link (after a retransmitted SYN its timer starts at 3 s and doubles).
     */
    public static final String JOIN_TIMEOUT = "GEX_BOOTSTRAP_JOIN_TIMEOUT";
    /** How long the first connection waits for the launcher's CHALLENGE before a fresh one is tried; doubles. */
    static final long FIRST_CHALLENGE_WAIT_MS = 3_000;
    static final long MAX_CHALLENGE_WAIT_MS = 24_000;
    /** How long the last word waits for the launcher to close its end (it does so as soon as it reads the word). */
    private static final long LINGER_MS = 2_000;

    private final JobHealth health;
    private final boolean exitOnFailure;
    private final long graceMillis;
    private final long collectiveTimeoutNs;
    private final LinkedBlockingQueue<byte[][]> results = new LinkedBlockingQueue<>();
    private int sequence;
    private volatile boolean closing;
    /** Counted down when the reader stops: the launcher closed its end, sent ABORT or EXIT, or the socket failed. */
    private final CountDownLatch readerDone = new CountDownLatch(1);
    private volatile Thread reader;

    private TcpBootstrap(int rank, int size, Socket socket, JobHealth health, boolean exitOnFailure, long graceMillis,
                         long collectiveTimeoutNs) throws IOException {
        this.rank = rank;
        this.size = size;
        this.socket = socket;
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.health = health;
        this.exitOnFailure = exitOnFailure;
        this.graceMillis = graceMillis;
        this.collectiveTimeoutNs = collectiveTimeoutNs;
    }

    /**
     * Connects to {@code GEX_BOOTSTRAP} (retrying for up to {@value #JOIN_TIMEOUT} seconds, 60 by default) and
     * proves {@code GEX_JOB_SECRET} (read from stdin when it is {@value JobSecret#FROM_STDIN}:
     * {@link JobSecret#resolve}).
     *
     * @throws GexException if the rendezvous cannot be reached or rejects this rank
     */
    public static TcpBootstrap connect(Config config, int rank, int size, JobHealth health) {
        final String address = config.require("GEX_BOOTSTRAP");
        final int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("GEX_BOOTSTRAP=" + address + " is not host:port");
        }
        final String host = address.substring(0, colon);
        final int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("GEX_BOOTSTRAP=" + address + " has no numeric port");
        }
        final byte[] secret = JobSecret.fromHex(JobSecret.resolve(config).require("GEX_JOB_SECRET"));
        final boolean exit = config.getBoolean("GEX_EXIT_ON_FAILURE", false);
        final long grace = config.getLong("GEX_FAILURE_GRACE_MS", 1500, 0, 60_000);
        final long collectiveTimeout = TimeUnit.SECONDS.toNanos(config.getLong(COLLECTIVE_TIMEOUT, 300, 1, 86_400));
        final long joinSeconds = config.getLong(JOIN_TIMEOUT, 60, 1, 86_400);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(joinSeconds);
        IOException last = null;
        long left;
        long challengeWaitMs = FIRST_CHALLENGE_WAIT_MS;
        while ((left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) > 0) {
            final Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), (int) Math.min(2000, left));
                s.setTcpNoDelay(true);
                final TcpBootstrap b = new TcpBootstrap(rank, size, s, health, exit, grace, collectiveTimeout);
                final long wait = challengeWaitMs;
                challengeWaitMs = Math.min(2 * challengeWaitMs, MAX_CHALLENGE_WAIT_MS);
                b.handshake(secret, wait, deadline);
                b.startReader();
                return b;
            } catch (IOException e) {
                last = e;
                try {
                    s.close();
                    Thread.sleep(100);
                } catch (IOException | InterruptedException ignored) {
                    // retrying
                }
            }
        }
        throw new GexException("rank " + rank + ": cannot join the job through the bootstrap at " + address
            + " within " + JOIN_TIMEOUT + "=" + joinSeconds + " s: " + (last == null ? "timed out" : last.getMessage()),
            last);
    }

    /**
     * Waits up to {@code challengeWaitMs} for the launcher's CHALLENGE, then (having answered it) for its WELCOME until
     * the join deadline. The launcher speaks first, so a connection whose last handshake ACK was lost carries nothing
     * that would complete it: the launcher never accepts it, and waiting on it longer cannot help (a lossy-link test
     * waited out its whole join timeout so). A fresh connection can; before the HELLO nothing was registered.
     */
    private void handshake(byte[] secret, long challengeWaitMs, long deadline) throws IOException {
        final long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        socket.setSoTimeout((int) Math.min(left, challengeWaitMs));
        final BootstrapFrame challenge = BootstrapFrame.read(in);
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE,
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
        if (challenge.type() != BootstrapFrame.CHALLENGE) {
            throw new IOException("expected CHALLENGE, got frame type " + challenge.type());
        }
        BootstrapFrame.hello(rank, JobSecret.proof(secret, challenge.body(), rank)).write(out);
        final BootstrapFrame welcome;
        try {
            welcome = BootstrapFrame.read(in);
        } catch (SocketTimeoutException e) {
            throw e; // the join deadline passed: slow, not refused
        } catch (IOException e) {
            throw new GexException("rank " + rank + ": the bootstrap rejected this rank (wrong GEX_JOB_SECRET, or rank "
                + rank + " already joined)", e);
        }
        if (welcome.type() != BootstrapFrame.WELCOME) {
            throw new IOException("expected WELCOME, got frame type " + welcome.type());
        }
        socket.setSoTimeout(0);
    }

    private void startReader() {
        final Thread t = new Thread(this::read, "gex-bootstrap-" + rank);
        t.setDaemon(true);
        reader = t;
        t.start();
    }

    private void read() {
        try {
            while (true) {
                final BootstrapFrame f = BootstrapFrame.read(in);
                if (f.type() == BootstrapFrame.RESULT) {
                    results.add(f.blobs());
                } else if (f.type() == BootstrapFrame.ABORT) {
                    fail(f.leadingInt(), f.reason());
                    return;
                } else if (f.type() == BootstrapFrame.CLOSED) {
                    health.peerClosed(f.leadingInt());
                } else if (f.type() == BootstrapFrame.EXIT) {
                    endByExit(f.leadingInt(), f.exitCode());
                    return;
                }
            }
        } catch (IOException e) {
            if (!closing) {
                fail(-1, "the bootstrap connection to the launcher was lost: " + e.getMessage());
            }
        } finally {
            readerDone.countDown();
        }
    }

    /** Another rank called exit(code): a process of its own ends now with that code, as gasnet_exit ends the job. */
    private void endByExit(int by, int code) {
        if (exitOnFailure && !closing) {
            // before anything can fail a wait: this process's code must be the exit code, not a failure's
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        health.fail(by, "rank " + by + " called exit(" + code + ")");
        results.add(FAILED);
    }

    private void fail(int failedRank, String reason) {
        health.fail(failedRank, reason);
        results.add(FAILED);
        if (exitOnFailure && !closing) {
            System.err.println("gex: rank " + rank + ": aborting: " + health.failure().getMessage());
            final Thread reaper = new Thread(() -> {
                try {
                    Thread.sleep(graceMillis);
                } catch (InterruptedException ignored) {
                    // halt now
                }
                Runtime.getRuntime().halt(1);
            }, "gex-failure-exit");
            reaper.setDaemon(true);
            reaper.start();
        }
    }

    /** The local end of the connection to the rendezvous. */
    @Override
    public java.net.InetAddress localAddress() {
        return socket.getLocalAddress();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public synchronized byte[][] allgather(byte[] mine) {
        health.check();
        try {
            BootstrapFrame.allgather(sequence++, mine).write(out);
        } catch (IOException e) {
            health.fail(-1, "cannot reach the launcher's bootstrap: " + e.getMessage());
            health.check();
        }
        final long start = System.nanoTime();
        try {
            while (true) {
                if (System.nanoTime() - start > collectiveTimeoutNs) {
                    // the ranks' collectives are out of step: end the job rather than let anyone wait forever
                    final String why = "rank " + rank + " waited " + TimeUnit.NANOSECONDS.toSeconds(collectiveTimeoutNs)
                        + " s (" + COLLECTIVE_TIMEOUT + ") in bootstrap collective #" + (sequence - 1)
                        + " for the other ranks; did every rank make the same collective calls?";
                    health.fail(rank, why);
                    abort(why);
                    throw new GexTimeoutException(why);
                }
                final byte[][] r = results.poll(100, TimeUnit.MILLISECONDS);
                if (r == FAILED || health.failed()) {
                    results.add(FAILED);
                    health.check();
                }
                if (r != null) {
                    if (r.length != size) {
                        throw new GexException("bootstrap allgather returned " + r.length + " blobs for " + size
                            + " ranks");
                    }
                    return r;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GexException("rank " + rank + ": interrupted in a bootstrap collective", e);
        }
    }

    @Override
    public void abort(String reason) {
        sayLast(BootstrapFrame.abort(rank, reason));
    }

    /**
     * For tests: drops the connection without a word, as a crashed process would (public for the rendezvous' tests in
     * gex-launch; the package is exported to GEX/J's modules only).
     */
    public void abortWithoutNotice() {
        closing = true;
        closeSocket();
    }

    @Override
    public void close() {
        sayLast(new BootstrapFrame(BootstrapFrame.BYE, new byte[0]));
    }

    @Override
    public void exit(int code) {
        sayLast(BootstrapFrame.exit(rank, code));
    }

    /**
     * This rank's last word to the launcher (BYE, ABORT or EXIT), then the connection closes. Never throws.
     *
     * <p>The close lingers: this end stops sending, and the reader keeps reading until the launcher closes its end
     * (at most {@value #LINGER_MS} ms). The launcher may be telling this rank that another rank closed while this
     * rank's word is in flight; closing a socket with such news unread makes the kernel reset the connection, and a
     * launcher that reads the reset before the word fails a job whose ranks all ended well.
     */
    private void sayLast(BootstrapFrame frame) {
        closing = true;
        try {
            synchronized (out) {
                frame.write(out);
            }
            socket.shutdownOutput();
            if (Thread.currentThread() != reader) {
                readerDone.await(LINGER_MS, TimeUnit.MILLISECONDS);
            }
        } catch (IOException ignored) {
            // the launcher is gone, or learns from the closed connection instead
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeSocket();
        }
    }

    private void closeSocket() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
