package org.gexj.rdma;

import java.lang.foreign.MemorySegment;

/**
 * An {@link RdmaNic} that can register user memory ({@code Client.register}) for peers' RMA by key, which the engine
 * then offers the core ({@link RdmaPeerRegistrations}). By default only a NIC where a peer's access with a key closed
 * since, outside the region or against its access fails that one operation and leaves the connection working says so
 * ({@link #registersForPeers}): ofi's sockets provider. Elsewhere it is the program's promise, asked for by a setting
 * ({@code GEX_OFI_PEER_KEYS=on}, {@code GEX_IBV_PEER_KEYS=on}): on verbs a remote access error moves the RC queue pair
 * to the error state, on tcp;ofi_rxm later reads from that peer fail, and the job ends naming the peer. Without it,
 * registrations are reached over messages, where the owner refuses by itself.
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
