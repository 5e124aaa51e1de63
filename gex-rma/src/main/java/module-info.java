/** GEX/J one-sided put and get: blocking, non-blocking and implicit-handle. */
module org.gexj.rma {
    requires transitive org.gexj.am;

    exports org.gexj.rma;

    provides org.gexj.internal.ClientLayer with org.gexj.rma.internal.RmaLayer;
}
