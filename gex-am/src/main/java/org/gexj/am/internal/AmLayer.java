package org.gexj.am.internal;

import org.gexj.Client;
import org.gexj.am.Am;
import org.gexj.internal.ClientLayer;

/** Opens the AM layer in {@code Gex.init}: its listener and its credit-return handler exist before peers send. */
public final class AmLayer implements ClientLayer {
    @Override
    public void open(Client client) {
        Am.of(client);
    }
}
