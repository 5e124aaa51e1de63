/** GASNet's RMA microbenchmarks testsmall (non-bulk put/get) and testlarge (bulk put/get) on GEX/J. */
module org.gexj.testrma {
    requires org.gexj.rma;
    requires org.gexj.coll;
    requires org.gexj.benchutil;

    exports org.gexj.testrma;
}
