/** GASNet's testam microbenchmark on GEX/J. */
module org.gexj.testam {
    requires org.gexj.am;
    requires org.gexj.benchutil;

    exports org.gexj.testam;
}
