package org.gexj.smp;

import org.gexj.Config;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;
import org.gexj.spi.JobHealth;
import org.gexj.testkit.ThreadBootstrap;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conduit is found through ServiceLoader under its name and probes its host like Netty's transports. */
class SmpConduitProviderTest {
    @Test
    void serviceLoaderFindsTheSmpProvider() {
        final List<ConduitProvider> smp = ServiceLoader.load(ConduitProvider.class).stream()
            .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("smp")).toList();
        assertEquals(1, smp.size());
        assertTrue(smp.getFirst() instanceof SmpConduitProvider);
    }

    @Test
    void availableOnAHostWithAWritableDevShm() {
        assertTrue(Smp.isAvailable(), () -> "unavailable: " + Smp.unavailabilityCause());
        assertNull(Smp.unavailabilityCause());
        final SmpConduitProvider provider = new SmpConduitProvider();
        assertTrue(provider.isAvailable());
        assertNull(provider.unavailabilityCause());
    }

    @Test
    void aOneRankJobOpensThroughTheProvider() {
        final String jobId = SmpJob.newJobId();
        try (Conduit conduit = new SmpConduitProvider().open(new ConduitContext(0, 1, jobId, ThreadBootstrap.job(1)[0],
            Config.of(Map.of()), new JobHealth()))) {
            assertEquals("smp", conduit.capabilities().conduit());
            conduit.barrierNotify();
            assertTrue(conduit.barrierTry());
        }
        assertEquals(List.of(), SmpJob.filesOf(jobId));
    }
}
