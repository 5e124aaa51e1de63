package org.gexj.rma;

import org.gexj.Event;
import org.gexj.internal.PayloadCopy;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * RMA on conduits that map every peer's segment into this process (smp): a put or get is one memory copy,
 * complete at return.
 */
final class CrossMappedRmaEngine implements RmaEngine {
    private final Conduit conduit;
    private final int size;
    private MemorySegment[] peers;

    CrossMappedRmaEngine(Conduit conduit, int size) {
        this.conduit = conduit;
        this.size = size;
    }

    /** Looked up on first use: Rma may be created before the segments are attached. */
    private MemorySegment peer(int rank) {
        MemorySegment[] p = peers;
        if (p == null) {
            p = new MemorySegment[size];
            for (int r = 0; r < size; r++) {
                p[r] = conduit.peerSegment(r);
            }
            peers = p;
        }
        return p[rank];
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion,
                    Event local) {
        if (nbytes == 0) {
            return; // src may be null
        }
        PayloadCopy.copy(src, srcOffset, peer(peer), remoteOffset, nbytes);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        if (nbytes == 0) {
            return; // dst may be null
        }
        PayloadCopy.copy(peer(peer), remoteOffset, dst, dstOffset, nbytes);
    }

    @Override
    public boolean synchronous() {
        return true;
    }
}
