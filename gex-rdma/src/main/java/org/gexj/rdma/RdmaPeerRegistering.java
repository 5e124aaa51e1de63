package org.gexj.rdma;

import java.lang.foreign.MemorySegment;

/**
 * An {@link RdmaNic} that can register user memory ({@code Client.register}) for peers' RMA by key, which the engine
 * then offers the core ({@link RdmaPeerRegistrations}). Only a NIC where a peer's access with a key closed since,
 * outside the region or against its access fails that one operation and leaves the connection working should say so
 * ({@link #registersForPeers}); verbs does not (a remote access error moves the RC queue pair to the error state), so
 * ibv does not implement this, and its registrations are reached over messages, where the owner refuses by itself.
 */
public interface RdmaPeerRegistering extends RdmaNic {
    /** Whether this NIC, as configured, registers user memory for peers (ofi: {@code GEX_OFI_PEER_KEYS}). */
    boolean registersForPeers();

    /**
     * Registers {@code memory} for peers' remote reads, and remote writes when {@code writable}, under a key no earlier
     * registration of this NIC had where the NIC lets the caller choose keys (control path, under the lock). The
     * caller releases it.
     *
     * @throws RuntimeException the conduit's exception, naming the call that failed
     */
    RdmaRegion registerForPeers(MemorySegment memory, boolean writable);
}
