package org.gexj.rma.internal;

import org.gexj.Client;
import org.gexj.internal.ClientLayer;
import org.gexj.rma.Rma;

/**
 * Opens the RMA layer in {@code Gex.init}, so that RMA over AM's handlers are registered on every rank before any
 * rank can put or get.
 */
public final class RmaLayer implements ClientLayer {
    @Override
    public void open(Client client) {
        Rma.of(client);
    }
}
