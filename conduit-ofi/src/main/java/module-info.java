/**
 * The ofi conduit: GEX/J over libfabric RDM endpoints, called through the FFM API (no JNI, no C shim), so one jar runs
 * on every fabric libfabric supports. Found through the conduit SPI.
 */
module org.gexj.ofi {
    requires org.gexj.core;

    exports org.gexj.ofi;

    provides org.gexj.spi.ConduitProvider with org.gexj.ofi.OfiConduitProvider;
}
