package org.gexj.launch.rendezvous;

import org.gexj.bootstrap.JobSecret;
import org.gexj.bootstrap.wire.BootstrapFrame;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The launcher's side of the bootstrap: a TCP rendezvous, on 127.0.0.1 unless the launcher is given another address
 * ({@code gexrun --bind}), where the ranks of one job authenticate with the job secret, then exchange blobs
 * ({@code allgather}, of which {@code barrier} is the empty case).
 *
 * <p>A connection that fails authentication is closed and counted without disturbing the job. A rank whose
 * connection ends without BYE is taken as dead: every other rank receives ABORT naming it, and
 * {@link #failure()} says so. One thread per connection (control path; jobs here are small).
 */
public final class RendezvousServer implements AutoCloseable {
    /**
     * How long a connection may take to answer the challenge: a rank's default join timeout, which lets TCP
     * retransmit over a lossy link; a connection that proves nothing holds only its own thread meanwhile.
     */
    private static final int HELLO_TIMEOUT_MS = 60_000;

    private final int size;
    private final byte[] secret;
    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private final DataOutputStream[] outputs;
    private final boolean[] finished;
    private final AtomicInteger rejected = new AtomicInteger();
    private byte[][] round;
    private int roundCount;
    private int roundSequence;
    private volatile String failure;
    private volatile int failedRank = Integer.MIN_VALUE;
    private volatile boolean closed;
    private volatile int exitRank = -1;
    private volatile int exitCode;

    /** Binds 127.0.0.1 on an ephemeral port and starts accepting. */
    public RendezvousServer(int size, byte[] secret) throws IOException {
        this(size, secret, InetAddress.getLoopbackAddress());
    }

    /**
     * Binds {@code address} on an ephemeral port and starts accepting. Off loopback, anyone on the network can
     * connect: a connection that cannot prove the job secret is rejected, as on loopback.
     */
    public RendezvousServer(int size, byte[] secret, InetAddress address) throws IOException {
        if (size < 1) {
            throw new IllegalArgumentException("job size " + size + " must be at least 1");
        }
        this.size = size;
        this.secret = secret.clone();
        this.outputs = new DataOutputStream[size];
        this.finished = new boolean[size];
        this.round = new byte[size][];
        this.server = new ServerSocket();
        try {
            server.bind(new InetSocketAddress(address, 0), size + 16);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        this.acceptor = new Thread(this::accept, "gex-rendezvous-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code host:port} for {@code GEX_BOOTSTRAP}. */
    public String address() {
        return server.getInetAddress().getHostAddress() + ":" + port();
    }

    /** Connections closed because they could not prove the job secret (or named a bad or duplicate rank). */
    public int rejectedConnections() {
        return rejected.get();
    }

    /** Why the job failed, or null. */
    public String failure() {
        return failure;
    }

    /** The rank whose failure ended the job (-1: the launcher itself), or {@code Integer.MIN_VALUE}. */
    public int failedRank() {
        return failedRank;
    }

    /** The rank that first called {@code exit(code)}, or -1: the job ends with {@link #exitCode()}. */
    public int exitRank() {
        return exitRank;
    }

    public int exitCode() {
        return exitCode;
    }

    /** Sends {@code frame} to every connected rank but {@code rank} that has not ended; call holding this lock. */
    private void tellOthers(int rank, BootstrapFrame frame) {
        for (int r = 0; r < size; r++) {
            if (r != rank && outputs[r] != null && !finished[r]) {
                try {
                    frame.write(outputs[r]);
                } catch (IOException e) {
                    // already gone
                }
            }
        }
    }

    /** A rank called exit(code): it counts as a goodbye, and every other rank is told to end with the same code. */
    private void exit(int rank, int code) {
        synchronized (this) {
            finished[rank] = true;
            if (exitRank >= 0) {
                return;
            }
            exitCode = code;
            exitRank = rank;
            tellOthers(rank, BootstrapFrame.exit(rank, code));
        }
    }

    /** True once every rank has said BYE. */
    public synchronized boolean allFinished() {
        for (boolean f : finished) {
            if (!f) {
                return false;
            }
        }
        return true;
    }

    private void accept() {
        while (!closed) {
            final Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            synchronized (this) {
                if (closed) {
                    quietClose(s);
                    return;
                }
                sockets.add(s);
                final Thread t = new Thread(() -> serve(s), "gex-rendezvous-conn");
                t.setDaemon(true);
                readers.add(t);
                t.start();
            }
        }
    }

    private void serve(Socket socket) {
        int rank = -1;
        try {
            socket.setTcpNoDelay(true);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            final byte[] nonce = JobSecret.random(32);
            new BootstrapFrame(BootstrapFrame.CHALLENGE, nonce).write(out);
            socket.setSoTimeout(HELLO_TIMEOUT_MS);
            final BootstrapFrame hello = BootstrapFrame.read(in, BootstrapFrame.MAX_UNAUTHENTICATED_BODY);
            socket.setSoTimeout(0);
            final String why = checkHello(hello, nonce);
            if (why != null) {
                reject(socket, why);
                return;
            }
            rank = hello.leadingInt();
            synchronized (this) {
                outputs[rank] = out;
                new BootstrapFrame(BootstrapFrame.WELCOME, new byte[0]).write(out);
                if (failure != null) {
                    BootstrapFrame.abort(failedRank, failure).write(out);
                }
            }
            while (true) {
                final BootstrapFrame f = BootstrapFrame.read(in);
                switch (f.type()) {
                    case BootstrapFrame.ALLGATHER -> contribute(rank, f.leadingInt(), f.rest());
                    case BootstrapFrame.BYE -> {
                        synchronized (this) {
                            finished[rank] = true;
                            // a rank still waiting on this one (an unmatched barrier) can then fail instead of hang
                            tellOthers(rank, BootstrapFrame.closed(rank));
                        }
                        return;
                    }
                    case BootstrapFrame.ABORT -> {
                        abort(rank, f.reason());
                        return;
                    }
                    case BootstrapFrame.EXIT -> {
                        exit(rank, f.exitCode());
                        return;
                    }
                    default -> throw new IOException("unexpected frame type " + f.type() + " from rank " + rank);
                }
            }
        } catch (IOException e) {
            if (rank >= 0 && !closed) {
                final boolean ended;
                synchronized (this) {
                    ended = finished[rank];
                }
                if (!ended && exitRank < 0) { // after an exit(code) the ranks end without goodbye
                    abort(rank, "its bootstrap connection ended without goodbye (process died?)"
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()));
                }
            } else if (rank < 0 && !closed) {
                reject(socket, e instanceof java.io.EOFException
                    ? "closed before its HELLO (a rank that waited too long for the CHALLENGE tries a fresh connection)"
                    : "handshake failed: " + e);
            }
        } finally {
            quietClose(socket);
        }
    }

    private synchronized String checkHello(BootstrapFrame hello, byte[] nonce) throws IOException {
        if (hello.type() != BootstrapFrame.HELLO) {
            return "expected HELLO, got frame type " + hello.type();
        }
        final int rank = hello.leadingInt();
        if (rank < 0 || rank >= size) {
            return "rank " + rank + " outside [0, " + size + ")";
        }
        if (!JobSecret.verify(secret, nonce, rank, hello.rest())) {
            return "wrong job secret for rank " + rank;
        }
        if (outputs[rank] != null) {
            return "rank " + rank + " is already connected";
        }
        return null;
    }

    private void reject(Socket socket, String why) {
        rejected.incrementAndGet();
        System.err.println("gexrun: rejected bootstrap connection from " + socket.getRemoteSocketAddress()
            + ": " + why);
        quietClose(socket);
    }

    private synchronized void contribute(int rank, int sequence, byte[] blob) throws IOException {
        if (round[rank] != null || sequence != roundSequence) {
            throw new IOException("rank " + rank + " sent allgather " + sequence + " during round " + roundSequence
                + " (collectives out of order)");
        }
        round[rank] = blob;
        if (++roundCount == size) {
            final BootstrapFrame result = BootstrapFrame.result(sequence, round);
            round = new byte[size][];
            roundCount = 0;
            roundSequence++;
            for (DataOutputStream out : outputs) {
                try {
                    result.write(out);
                } catch (IOException e) {
                    // that rank's reader reports its death
                }
            }
        }
    }

    /**
     * Ends the job: every connected rank receives ABORT naming {@code rank} (-1 for the launcher). The first
     * failure is kept.
     */
    public void abort(int rank, String reason) {
        synchronized (this) {
            if (failure != null) {
                return;
            }
            failure = reason;
            failedRank = rank;
            tellOthers(rank, BootstrapFrame.abort(rank, reason));
        }
    }

    @Override
    public void close() {
        final List<Thread> threads;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Socket s : sockets) {
                quietClose(s);
            }
            threads = new ArrayList<>(readers);
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            acceptor.join(2000);
            for (Thread t : threads) {
                t.join(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void quietClose(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
