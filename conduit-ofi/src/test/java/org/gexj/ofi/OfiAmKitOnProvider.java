package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;

import java.time.Duration;
import java.util.Map;

/**
 * The AM conformance kit on the provider named by the environment's {@code GEX_OFI_PROVIDER}, for providers this
 * machine has only inside a VM: {@code tools/rxe-vm/run-junit.sh conduit-ofi org.gexj.ofi.OfiAmKitOnProvider
 * GEX_OFI_PROVIDER='verbs;ofi_rxm'} runs it over Soft-RoCE. Not a {@code *Test}: the build's own runs name their
 * providers (OfiTcp..., OfiShm..., OfiUdp...).
 */
public class OfiAmKitOnProvider extends AmConformanceKit {
    @Override
    protected Map<String, String> environment() {
        final String provider = System.getenv("GEX_OFI_PROVIDER");
        if (provider == null || provider.isBlank()) {
            throw new IllegalStateException("set GEX_OFI_PROVIDER to the provider to test, e.g. 'verbs;ofi_rxm'");
        }
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", provider);
    }

    /** Software RDMA under emulation runs tens of times slower than the host. */
    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(10);
    }

    /** {@code GEX_KIT_LAUNCH=gexrun} runs every job as processes started by gexrun (default: threads of this JVM). */
    @Override
    protected Launch launch() {
        return "gexrun".equals(System.getenv("GEX_KIT_LAUNCH")) ? Launch.GEXRUN : Launch.THREADS;
    }
}
