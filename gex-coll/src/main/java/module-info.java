/** GEX/J teams and collectives: split teams, barrier, broadcast, reduce-to-one and reduce-to-all over AM. */
module org.gexj.coll {
    requires transitive org.gexj.rma;

    exports org.gexj.coll;

    provides org.gexj.internal.ClientLayer with org.gexj.coll.internal.CollLayer;
}
