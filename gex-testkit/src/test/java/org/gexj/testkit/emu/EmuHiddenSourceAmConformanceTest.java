package org.gexj.testkit.emu;

import org.gexj.testkit.AmConformanceKit;

import java.util.Map;

/**
 * AM conformance over emu with every Long above 4 KiB by reassembly and remote writes reported without their source
 * (as libfabric's verbs;ofi_rxm reports them): the AM layer takes the source from the tag.
 */
class EmuHiddenSourceAmConformanceTest extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "emu", "GEX_EMU_HIDE_SOURCE", "1", "GEX_AMLONG_PROTOCOL", "reassembly");
    }
}
