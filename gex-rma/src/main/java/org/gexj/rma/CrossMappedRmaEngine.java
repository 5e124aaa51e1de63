package org.gexj.rma;

import org.gexj.Event;
import org.gexj.spi.Conduit;

import java.lang.foreign.MemorySegment;

/**
 * RMA on conduits that map every peer's segment into this process (smp): a put or get is one memory copy,
 * complete at return.
 */
final class CrossMappedRmaEngine implements RmaEngine {
    private final MemorySegment[] peers;

    CrossMappedRmaEngine(Conduit conduit, int size) {
        peers = new MemorySegment[size];
        for (int r = 0; r < size; r++) {
            peers[r] = conduit.peerSegment(r);
        }
    }

    @Override
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion) {
        MemorySegment.copy(src, srcOffset, peers[peer], remoteOffset, nbytes);
    }

    @Override
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        MemorySegment.copy(peers[peer], remoteOffset, dst, dstOffset, nbytes);
    }

    @Override
    public boolean synchronous() {
        return true;
    }
}
