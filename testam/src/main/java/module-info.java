/** GASNet's testam microbenchmark on GEX/J. */
module org.gexj.testam {
    requires org.gexj.am;

    exports org.gexj.testam;
}
