package org.gexj.spi;

import org.gexj.PeerFailedException;

import java.util.BitSet;

/**
 * The job's failure state, shared by the bootstrap (which hears from the launcher), the conduits and
 * every wait loop. Once failed it stays failed.
 */
public final class JobHealth {
    private volatile PeerFailedException failure;
    private volatile long closedAtNanos;
    private volatile int closedPeer = -1;
    /** Every peer known to have closed its client (guarded by this). */
    private final BitSet closedPeers = new BitSet();

    /** Records the first failure; later ones are ignored. */
    public synchronized void fail(int rank, String reason) {
        if (failure == null) {
            failure = new PeerFailedException(rank, reason);
        }
    }

    public boolean failed() {
        return failure != null;
    }

    /** @throws PeerFailedException if a peer or the launcher has failed */
    public void check() {
        final PeerFailedException f = failure;
        if (f != null) {
            throw new PeerFailedException(f.rank(), f.reason());
        }
    }

    public PeerFailedException failure() {
        return failure;
    }

    /**
     * Records that {@code rank} closed its client normally (the launcher says so, or a conduit that hears it from
     * that rank). Its close ended with a barrier that every rank had joined, so a rank that still waits for something
     * afterwards called more collectives than that rank did: its wait can never complete.
     */
    public synchronized void peerClosed(int rank) {
        closedPeers.set(rank);
        if (closedPeer < 0) {
            closedAtNanos = System.nanoTime();
            closedPeer = rank;
        }
    }

    /** The first peer known to have closed its client, or -1. */
    public int closedPeer() {
        return closedPeer;
    }

    /**
     * Whether {@code rank} is known to have closed its client: it completed its final barrier and needs nothing more
     * from this rank, so a closing conduit need not wait for it to acknowledge anything.
     */
    public synchronized boolean hasClosed(int rank) {
        return rank >= 0 && closedPeers.get(rank);
    }

    /** {@link System#nanoTime()} when {@link #closedPeer()} became known. */
    public long closedAtNanos() {
        return closedAtNanos;
    }
}
