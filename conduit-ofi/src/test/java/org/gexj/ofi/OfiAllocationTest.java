package org.gexj.ofi;

import org.gexj.testkit.AllocationKit;

import java.util.Map;

/**
 * The ofi conduit's data path allocates nothing, on tcp;ofi_rxm: every AM form and RMA completion style, Longs
 * packed, reassembled and put-sync-send, and RMA over AM (see {@link AllocationKit}); registrations reached by RDMA
 * with their keys ({@code GEX_OFI_PEER_KEYS=on}: the kit never uses a descriptor the owner would refuse).
 */
class OfiAllocationTest extends AllocationKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_OFI_PEER_KEYS", "on");
    }
}
