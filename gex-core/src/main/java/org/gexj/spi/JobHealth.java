package org.gexj.spi;

import org.gexj.PeerFailedException;

/**
 * The job's failure state, shared by the bootstrap (which hears from the launcher), the conduits and
 * every wait loop. Once failed it stays failed.
 */
public final class JobHealth {
    private volatile PeerFailedException failure;

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
}
