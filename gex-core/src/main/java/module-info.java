/**
 * GEX/J core: clients, segments, events, configuration and errors ({@code org.gexj}), the conduit and bootstrap SPI
 * ({@code org.gexj.spi}, for conduit and bootstrap modules found through {@link java.util.ServiceLoader}) and the
 * bootstraps a rank needs without more modules: the TCP client that joins a job of gexrun's or
 * {@code InProcessJob}'s, and a launcher-less one-rank job. The launcher is gex-launch; the PMIx bootstrap (mpirun,
 * srun) gex-bootstrap-pmix. The bootstrap and the library-internal operations stay inside GEX/J.
 */
module org.gexj.core {
    requires transitive org.agrona;

    exports org.gexj;
    exports org.gexj.spi;
    exports org.gexj.internal to org.gexj.am, org.gexj.rma, org.gexj.coll;
    // ppoll, for conduits that block on a descriptor when idle; call slots, for downcalls that allocate nothing
    exports org.gexj.internal.ffm to org.gexj.ofi, org.gexj.udp, org.gexj.smp;
    // the launcher's rendezvous speaks the TCP bootstrap's protocol; it and the PMIx bootstrap use the secret's code
    exports org.gexj.bootstrap to org.gexj.launch, org.gexj.bootstrap.pmix;
    exports org.gexj.bootstrap.wire to org.gexj.launch;

    uses org.gexj.spi.ConduitProvider;
    uses org.gexj.spi.BootstrapProvider;
    uses org.gexj.internal.ClientLayer;

    provides org.gexj.spi.BootstrapProvider
        with org.gexj.bootstrap.TcpBootstrapProvider, org.gexj.bootstrap.SingletonBootstrapProvider;
}
