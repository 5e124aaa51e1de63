package org.gexj.coll.internal;

import org.gexj.Client;
import org.gexj.coll.Coll;
import org.gexj.internal.ClientLayer;

/** Opens the collectives in {@code Gex.init}, so that their handler exists on every rank before any rank sends. */
public final class CollLayer implements ClientLayer {
    @Override
    public void open(Client client) {
        Coll.of(client);
    }
}
