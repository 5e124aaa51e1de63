package org.gexj.udp;

import org.gexj.testkit.AmConformanceKit;
import org.gexj.testkit.KitHosts;
import org.gexj.testkit.NetnsSshHosts;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * AM conformance over udp with ranks started by {@code gexrun --hosts} over ssh on two "hosts" ({@link NetnsSshHosts}:
 * two network namespaces joined by a veth pair, each with an sshd), 2 ranks per host (4 wherever a test is written for
 * any job size), round robin, the launcher on the first host. The ranks get their environment and the job secret
 * through ssh only (the secret on stdin), and report their exit codes through it. Skipped, with a line on stderr,
 * when not root.
 */
class UdpSshAmConformanceTest extends AmConformanceKit {
    @RegisterExtension
    static final NetnsSshHosts HOSTS = NetnsSshHosts.sharingConnections();

    @Override
    protected Map<String, String> environment() {
        return Map.of("GEX_CONDUIT", "udp");
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
