/** JMH benchmarks of GEX/J (run on the class path by bin/gexbench). */
@SuppressWarnings("requires-automatic")
module org.gexj.bench {
    requires org.gexj.rma;
    requires org.gexj.launch;
    requires jmh.core;
    requires java.management;

    exports org.gexj.bench;
}
