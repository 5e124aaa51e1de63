package org.gexj.launch;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What gexrun says about conduits before it starts a rank: help, the list, and a bad or unusable conduit. */
class ConduitCatalogTest {
    private static final ConduitCatalog CATALOG = new ConduitCatalog(List.of(
        new Fake("smp", null), new Fake("ofi", "libfabric.so.1: cannot open shared object file"),
        new Fake("udp", null)));

    @Test
    void anUnknownConduitIsNamedWithTheAvailableOnes() {
        assertEquals(Optional.of("gexrun: conduit foo is not known; available: smp, udp (gexrun --list-conduits says"
            + " more)"), CATALOG.problem("foo", true));
        // ranks started elsewhere (--wrap) may have what this host lacks, but a name is unknown anywhere
        assertEquals(Optional.of("gexrun: conduit foo is not known; available: smp, udp (gexrun --list-conduits says"
            + " more)"), CATALOG.problem("foo", false));
    }

    @Test
    void anUnavailableConduitIsReportedWithItsReason() {
        assertEquals(Optional.of("gexrun: conduit ofi is unavailable here: libfabric.so.1: cannot open shared object"
            + " file; available: smp, udp"), CATALOG.problem("ofi", true));
        assertEquals(Optional.empty(), CATALOG.problem("ofi", false));
        assertEquals(Optional.empty(), CATALOG.problem("udp", true));
    }

    @Test
    void theListingShowsEachConduitAndTheDefault() {
        assertEquals("""
            conduits (default: smp):
              smp    available
              ofi    unavailable: libfabric.so.1: cannot open shared object file
              udp    available""", CATALOG.listing("smp"));
    }

    @Test
    void helpAndTheListAreAskedBeforeTheProgram() {
        assertEquals(GexRunOptions.Request.HELP, GexRunOptions.request("-h"));
        assertEquals(GexRunOptions.Request.HELP, GexRunOptions.request("-n", "2", "--help"));
        assertEquals(GexRunOptions.Request.LIST_CONDUITS, GexRunOptions.request("--list-conduits"));
        // after the program, or as an option's value, they belong to someone else
        assertEquals(GexRunOptions.Request.RUN, GexRunOptions.request("-n", "2", "testam", "--help"));
        assertEquals(GexRunOptions.Request.RUN, GexRunOptions.request("-n", "2", "--", "--help"));
        assertEquals(GexRunOptions.Request.RUN, GexRunOptions.request("-E", "--help", "-n", "2", "testam"));
        assertEquals(GexRunOptions.Request.RUN, GexRunOptions.request("-n", "2", "testam"));
    }

    @Test
    void theConduitOfAJobComesFromTheOptionThenMinusEThenTheEnvironment() {
        assertEquals("udp", GexRunOptions.parse("-n", "1", "--conduit", "udp", "-E", "GEX_CONDUIT=ofi", "x")
            .effectiveConduit("smp"));
        assertEquals("ofi", GexRunOptions.parse("-n", "1", "-E", "GEX_CONDUIT=ofi", "x").effectiveConduit("udp"));
        assertEquals("udp", GexRunOptions.parse("-n", "1", "x").effectiveConduit("udp"));
        assertEquals("smp", GexRunOptions.parse("-n", "1", "x").effectiveConduit(null));
        assertEquals(Map.of(), GexRunOptions.parse("-n", "1", "x").env());
    }

    private record Fake(String name, String unavailable) implements ConduitProvider {
        @Override
        public boolean isAvailable() {
            return unavailable == null;
        }

        @Override
        public Throwable unavailabilityCause() {
            return unavailable == null ? null : new UnsatisfiedLinkError(unavailable);
        }

        @Override
        public Conduit open(ConduitContext context) {
            throw new UnsupportedOperationException("not opened by the launcher");
        }
    }
}
