package org.gexj.testkit.emu;

import org.gexj.rma.AtomicDomain;
import org.gexj.testkit.AtomicKit;

import java.util.Map;

/**
 * Remote atomics over emu performed by its "NIC" ({@code RmaTransport.atomic}, applied where they land), which
 * reorders and delays them: the path of ofi and ibv's NIC atomics, at every operation and type.
 */
class EmuNicAtomicTest extends AtomicKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu");
    }

    @Override
    protected int domainFlags() {
        return AtomicDomain.FAVOR_REMOTE;
    }

    /** Counted by the target: each rank's operations land on its neighbour, and its neighbour's on it. */
    @Override
    protected String nicAtomicsCounter() {
        return "emu.atomics";
    }
}
