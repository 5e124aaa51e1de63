/**
 * The udp conduit: GEX/J over UDP datagrams, reliable by its own protocol, carried by Netty's native epoll transport
 * where it loads and NIO otherwise. Found through the conduit SPI.
 */
module org.gexj.udp {
    requires org.gexj.core;
    requires io.netty.transport.unix.common;
    requires io.netty.transport.classes.epoll;

    exports org.gexj.udp;

    provides org.gexj.spi.ConduitProvider with org.gexj.udp.UdpConduitProvider;
}
