package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsSshHosts;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

/**
 * AM conformance over udp with ranks started by Open MPI's {@code mpirun} on two "hosts" ({@link NetnsSshHosts}: two
 * network namespaces joined by a veth pair, each with an sshd through which mpirun starts its orted), 2 ranks per host
 * (4 wherever a test is written for any job size), round robin. The ranks find each other through mpirun's PMIx
 * servers (PmixBootstrap, across both hosts) and bind their host's address. Skipped, with a line on stderr, when not
 * root.
 */
class UdpMpirunAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsSshHosts HOSTS = new NetnsSshHosts();

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
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
