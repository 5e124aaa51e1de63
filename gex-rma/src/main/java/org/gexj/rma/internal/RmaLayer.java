package org.gexj.rma.internal;

import org.gexj.Client;
import org.gexj.internal.ClientLayer;
import org.gexj.rma.Pwc;
import org.gexj.rma.Rma;
import org.gexj.rma.Vis;

/**
 * Opens the RMA layer in {@code Gex.init}, so that the handlers of RMA over AM, of put and get with completion, of
 * remote atomics and of packed VIS are registered on every rank before any rank can use them.
 */
public final class RmaLayer implements ClientLayer {
    @Override
    public void open(Client client) {
        Rma.of(client);
        Pwc.of(client);
        Vis.of(client);
    }
}
