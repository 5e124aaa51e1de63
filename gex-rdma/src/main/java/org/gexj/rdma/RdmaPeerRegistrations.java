package org.gexj.rdma;

import org.gexj.spi.RegisteredAccess;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The NIC's side of {@code Client.register} where it registers memory for peers
 * ({@link RdmaPeerRegistering#registerForPeers}):
 * each registration is registered with the NIC for remote reads, and writes unless the memory is read-only, and its
 * key goes into the descriptor; peers then put and get by RDMA ({@link RdmaRmaEngine#startRegistered}) and the NIC
 * refuses what the owner no longer allows: a closed registration's key is gone, a range outside it or a write into
 * read-only memory fails the operation. {@link #put} and {@link #get} answer {@link #ELSEWHERE}: there is no
 * synchronous copy here, the RMA layer uses the transport's registered forms.
 *
 * <p>Threads: {@link #publish} and {@link #withdraw} from registering threads, each under the engine's lock (the NIC
 * is not thread-safe); the map is guarded by it too.
 */
final class RdmaPeerRegistrations implements RegisteredAccess {
    private final RdmaGuard guard;
    private final RdmaPeerRegistering nic;
    private final Map<Integer, RdmaRegion> regions = new HashMap<>();

    RdmaPeerRegistrations(RdmaGuard guard, RdmaPeerRegistering nic) {
        this.guard = guard;
        this.nic = nic;
    }

    @Override
    public OptionalLong publish(int handle, MemorySegment memory) {
        guard.lockOpen();
        try {
            final RdmaRegion region = nic.registerForPeers(memory, !memory.isReadOnly());
            regions.put(handle, region);
            return OptionalLong.of(region.key());
        } finally {
            guard.unlock();
        }
    }

    /**
     * Closes the NIC's registration: from here its key is refused. Operations the NIC already placed are complete; the
     * engine's lock keeps a poll (which drives the provider) from placing one while it closes.
     */
    @Override
    public void withdraw(int handle) {
        guard.lock();
        try {
            final RdmaRegion region = regions.remove(handle);
            if (region != null && !guard.closed()) {
                region.release().run(); // once the NIC closed, its close released them all
            }
        } finally {
            guard.unlock();
        }
    }

    /** Releases the registrations still open (under the lock, before the NIC closes: a domain with them refuses). */
    void closeAll() {
        for (RdmaRegion region : regions.values()) {
            region.release().run();
        }
        regions.clear();
    }

    /** Registrations open for peers (under the lock). */
    int open() {
        return regions.size();
    }

    /** @return {@link #ELSEWHERE}: peers move data by RDMA, started by the RMA layer */
    @Override
    public int put(int peer, int handle, long offset, MemorySegment src, long srcOffset, long nbytes) {
        return ELSEWHERE;
    }

    /** @return {@link #ELSEWHERE}: peers move data by RDMA, started by the RMA layer */
    @Override
    public int get(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
        return ELSEWHERE;
    }

    /** @return false: a peer's get is an RDMA read the RMA layer starts and completes later, not a call here */
    @Override
    public boolean pullable(int handle) {
        return false;
    }

    /** @return {@link #ELSEWHERE}, as nothing here is {@link #pullable} */
    @Override
    public int pull(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
        return ELSEWHERE;
    }
}
