package org.gexj;

import org.gexj.spi.Conduit;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The {@code GEX_STATS=1} report a rank prints at close. */
final class ClientStats {
    private ClientStats() {
    }

    /**
     * {@code GEX_STATS=1}: at close, a line per layer on stderr ({@code gex: stats rank R am: ...}, {@code rma},
     * then the conduit's, named after it), as GASNet's {@code GASNET_STATS} prints.
     */
    static void print(int rank, List<Supplier<Map<String, Long>>> layerStats,
                      Conduit conduit) {
        for (Supplier<Map<String, Long>> layer : layerStats) {
            final Map<String, Long> counters = layer.get();
            if (!counters.isEmpty()) {
                final String name = counters.keySet().iterator().next();
                line(rank, name.substring(0, name.indexOf('.')), counters);
            }
        }
        line(rank, conduit.capabilities().conduit(), conduit.counters());
    }

    private static void line(int rank, String layer, Map<String, Long> counters) {
        final StringBuilder line = new StringBuilder("gex: stats rank ").append(rank).append(' ').append(layer)
            .append(':');
        counters.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        System.err.println(line);
    }
}
