package org.gexj.ofi;

import org.gexj.testkit.ThreadsKit;

import java.util.Map;

/** Many threads per rank over ofi on tcp;ofi_rxm, Longs above the packed maximum by target-side reassembly. */
class OfiTcpThreadsTest extends ThreadsKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm", "GEX_AMLONG_PROTOCOL", "reassembly");
    }

    @Override
    protected String largeLongProtocol() {
        return "reassembly";
    }

    /** The payload's put completes in the CQ, which only the polling thread reads (README, Known problems). */
    @Override
    protected boolean longCompletionNeedsPoll() {
        return true;
    }
}
