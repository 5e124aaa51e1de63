/** GASNet's testqueue microbenchmark on GEX/J. */
module org.gexj.testqueue {
    requires org.gexj.rma;

    exports org.gexj.testqueue;
}
