/**
 * The ibv conduit: GEX/J over InfiniBand/RoCE verbs (rdma-core's {@code libibverbs.so.1}), called through the FFM API
 * (no JNI, no C shim). An adapter of the RDMA engine (org.gexj.rdma). Found through the conduit SPI. The native
 * bindings ({@code org.gexj.ibv.ffm}) and the connection blob ({@code org.gexj.ibv.wire}) stay inside.
 */
module org.gexj.ibv {
    requires org.gexj.core;
    requires org.gexj.rdma;

    exports org.gexj.ibv;

    provides org.gexj.spi.ConduitProvider with org.gexj.ibv.IbvConduitProvider;
}
