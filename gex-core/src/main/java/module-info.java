/**
 * GEX/J core: clients, segments, events, configuration and errors ({@code org.gexj}), the conduit SPI
 * ({@code org.gexj.spi}, for conduit modules found through {@link java.util.ServiceLoader}) and the launcher
 * ({@code org.gexj.launch}: {@code gexrun}, in-process jobs for tests). The bootstrap and the library-internal
 * operations stay inside GEX/J.
 */
module org.gexj.core {
    requires transitive org.agrona;
    requires java.management;

    exports org.gexj;
    exports org.gexj.spi;
    exports org.gexj.launch;
    exports org.gexj.internal to org.gexj.am, org.gexj.rma;

    uses org.gexj.spi.ConduitProvider;
    uses org.gexj.internal.ClientLayer;
}
