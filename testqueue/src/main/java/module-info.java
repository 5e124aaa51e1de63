/** GASNet's testqueue microbenchmark on GEX/J. */
module org.gexj.testqueue {
    requires org.gexj.rma;
    requires org.gexj.benchutil;

    exports org.gexj.testqueue;
}
