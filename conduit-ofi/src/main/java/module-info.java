/**
 * The ofi conduit: GEX/J over libfabric RDM endpoints, called through the FFM API (no JNI, no C shim), so one jar runs
 * on every fabric libfabric supports. An adapter of the RDMA engine (org.gexj.rdma). Found through the conduit SPI.
 */
module org.gexj.ofi {
    requires org.gexj.core;
    requires org.gexj.rdma;

    exports org.gexj.ofi;

    provides org.gexj.spi.ConduitProvider with org.gexj.ofi.OfiConduitProvider;
}
