package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The ofi conduit on libfabric's shm provider, between processes: testam, testqueue and the AM Long flood, as
 * OfiTestamIT and OfiLongFloodIT run them on tcp. Apart from those while shm fails at start-up: every rank binds
 * its shm endpoint to the same name (GEX_OFI_NODE's 127.0.0.1), so the second rank's fi_enable fails with EBUSY,
 * or, when it takes the name over, a rank dies of SIGSEGV in libfabric.
 */
class OfiShmIT {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testamRunsEverySection() throws Exception {
        OfiTestamIT.testam(OfiRuns.SHM);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void testqueueRunsEveryTable() throws Exception {
        OfiTestamIT.testqueue(OfiRuns.SHM);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyLongArrivesOnceWholeAndInPlace() throws Exception {
        OfiLongFloodIT.flood(OfiRuns.SHM, 2, 100);
    }
}
