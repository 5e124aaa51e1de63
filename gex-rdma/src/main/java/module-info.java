/**
 * The RDMA engine: the transport-neutral core of the conduits over RDMA NICs (ofi over libfabric, ibv over verbs).
 * An SPI for conduits: a conduit implements {@link org.gexj.rdma.RdmaNic} and delegates to
 * {@link org.gexj.rdma.RdmaEngine} by extending {@link org.gexj.rdma.RdmaConduit}; {@code wire} is the engine's
 * message header and segment blob.
 */
module org.gexj.rdma {
    requires transitive org.gexj.core;

    exports org.gexj.rdma;
    exports org.gexj.rdma.wire;
}
