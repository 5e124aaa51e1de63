package org.gexj.bootstrap.pmix;

import org.gexj.Config;
import org.gexj.spi.BootstrapProvider;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The module's provider as {@code Gex.init} meets it through {@link ServiceLoader}: between gex-core's tcp and
 * singleton, so that gexrun's variables win over an enclosing mpirun's and PMIx's over none.
 */
class PmixBootstrapProviderTest {
    private static final List<BootstrapProvider> BY_PRIORITY = ServiceLoader.load(BootstrapProvider.class).stream()
        .map(ServiceLoader.Provider::get).sorted(Comparator.comparingInt(BootstrapProvider::priority).reversed())
        .toList();

    /** The name of the first provider, highest priority first, that {@code env} requests: Gex.init's choice. */
    private static String chosen(Map<String, String> env) {
        final Config config = Config.of(env);
        return BY_PRIORITY.stream().filter(p -> p.requested(config)).findFirst().orElseThrow().name();
    }

    @Test
    void foundBetweenTcpAndSingleton() {
        assertEquals(List.of("tcp", "pmix", "singleton"), BY_PRIORITY.stream().map(BootstrapProvider::name).toList());
    }

    @Test
    void theEnvironmentChoosesAsGexInitDidBeforeBootstrapsWereProviders() {
        assertEquals("pmix", chosen(Map.of("PMIX_NAMESPACE", "ns", "PMIX_RANK", "0")));
        assertEquals("tcp", chosen(Map.of("PMIX_NAMESPACE", "ns", "PMIX_RANK", "0", "GEX_BOOTSTRAP", "h:1")));
        assertEquals("singleton", chosen(Map.of("PMIX_NAMESPACE", "ns")));
        assertEquals("singleton", chosen(Map.of()));
    }
}
