package org.gexj.internal;

import org.gexj.Client;

import java.util.List;
import java.util.ServiceLoader;

/**
 * A GEX/J layer with handlers of its own (AM, RMA over AM), opened on every rank inside {@code Gex.init}, before the
 * barrier that ends it. GASNet-EX registers its own handlers in {@code gex_Client_Init} for the same reason: a peer may
 * send to a library handler as soon as it has left init, and a rank that would register that handler only on its own
 * first use would drop the request, leaving the sender waiting for a reply that never comes.
 *
 * <p>Found with {@link ServiceLoader} (module descriptors and {@code META-INF/services}); this package is exported only
 * to GEX/J's own modules, so users neither see nor provide layers. A layer that is not on the path is not opened,
 * which is right: nothing on this rank could send to its handlers either.
 */
public interface ClientLayer {
    /** Creates the layer's per-client state and registers its handlers; throws on a bad setting. */
    void open(Client client);

    /** Every layer on the path, in a fixed order (by class name) so that every rank registers alike. */
    static List<ClientLayer> all() {
        return Holder.LAYERS;
    }

    /** Loaded once per class loader. */
    final class Holder {
        private static final List<ClientLayer> LAYERS = ServiceLoader.load(ClientLayer.class,
                ClientLayer.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .sorted(java.util.Comparator.comparing(l -> l.getClass().getName()))
            .toList();

        private Holder() {
        }
    }
}
