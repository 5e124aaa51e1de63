package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsSshHosts;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * AM conformance over ofi on tcp;ofi_rxm with ranks started by {@code gexrun --hosts} over ssh on two "hosts"
 * ({@link NetnsSshHosts}: two network namespaces joined by a veth pair, each with an sshd), 2 ranks per host (4
 * wherever a test is written for any job size), round robin, the launcher on the first host. Each rank's endpoint
 * binds its host's address ({@code GEX_OFI_NODE}'s default: the local end of its bootstrap connection), which the
 * other host reaches over the link. Skipped, with a line on stderr, when not root.
 */
class OfiTcpSshAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsSshHosts HOSTS = NetnsSshHosts.sharingConnections();

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected Launch launch() {
        return Launch.GEXRUN;
    }

    @Override
    protected KitHosts hosts() {
        return HOSTS;
    }
}
