package org.gexj.ofi;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsSshHosts;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

/**
 * AM conformance over ofi on tcp;ofi_rxm with ranks started by Open MPI's {@code mpirun} on two "hosts"
 * ({@link NetnsSshHosts}: two network namespaces joined by a veth pair, each with an sshd through which mpirun starts
 * its orted), 2 ranks per host (4 wherever a test is written for any job size), round robin. The ranks find each other
 * through mpirun's PMIx servers (PmixBootstrap, across both hosts); each endpoint binds its host's address
 * ({@code GEX_OFI_NODE}'s default under PMIx: the host's first address that is not loopback). Skipped, with a line on
 * stderr, when not root.
 */
class OfiTcpMpirunAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsSshHosts HOSTS = new NetnsSshHosts();

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "ofi", "GEX_OFI_PROVIDER", "tcp;ofi_rxm");
    }

    @Override
    protected Launch launch() {
        return Launch.MPIRUN;
    }

    @Override
    protected KitHosts hosts() {
        return HOSTS;
    }

    @Override
    protected List<String> mpirunOptions() {
        return HOSTS.mpirunOptions();
    }
}
