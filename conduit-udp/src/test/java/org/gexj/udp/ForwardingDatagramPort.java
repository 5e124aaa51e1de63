package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.udp.io.DatagramPort;

import java.net.InetSocketAddress;

/** A port that passes every call to another; tests override the one call they change. */
class ForwardingDatagramPort implements DatagramPort {
    private final DatagramPort port;

    ForwardingDatagramPort(DatagramPort port) {
        this.port = port;
    }

    @Override
    public boolean send(int peer, UnsafeBuffer data, int from, int to) {
        return port.send(peer, data, from, to);
    }

    @Override
    public int receive(UnsafeBuffer into, int from, int to) {
        return port.receive(into, from, to);
    }

    @Override
    public InetSocketAddress localAddress() {
        return port.localAddress();
    }

    @Override
    public void connect(int peer, InetSocketAddress address, int socketBuffer) {
        port.connect(peer, address, socketBuffer);
    }

    @Override
    public boolean withinHost(int peer) {
        return port.withinHost(peer);
    }

    @Override
    public String describe() {
        return port.describe();
    }

    @Override
    public void close() {
        port.close();
    }
}
