package org.gexj.udp;

import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitProvider;

/** ServiceLoader entry of the udp conduit ({@code GEX_CONDUIT=udp}). */
public final class UdpConduitProvider implements ConduitProvider {
    @Override
    public String name() {
        return "udp";
    }

    /** Always: with Netty's epoll missing, NIO datagram channels carry the datagrams. */
    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public Conduit open(ConduitContext context) {
        return UdpConduit.open(context);
    }
}
