/**
 * The ibv conduit: GEX/J over InfiniBand/RoCE verbs (rdma-core's {@code libibverbs.so.1}), called through the FFM API
 * (no JNI, no C shim). Found through the conduit SPI. The native bindings ({@code org.gexj.ibv.ffm}) stay inside.
 */
module org.gexj.ibv {
    requires org.gexj.core;

    exports org.gexj.ibv;

    provides org.gexj.spi.ConduitProvider with org.gexj.ibv.IbvConduitProvider;
}
