package org.gexj.ofi;

import org.gexj.rma.AtomicDomain;
import org.gexj.testkit.AtomicKit;

import java.util.Map;

/** Remote atomics over ofi on shm that the provider performs (fi_fetch_atomic and fi_compare_atomic). */
class OfiShmNicAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "shm");
    }

    @Override
    protected int domainFlags() {
        return AtomicDomain.FAVOR_REMOTE;
    }

    @Override
    protected String nicAtomicsCounter() {
        return "ofi.atomics";
    }
}
