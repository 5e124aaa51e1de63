/** The smp conduit: the ranks of one host over shared memory. Found through the conduit SPI. */
module org.gexj.smp {
    requires org.gexj.core;

    exports org.gexj.smp;

    provides org.gexj.spi.ConduitProvider with org.gexj.smp.SmpConduitProvider;
}
