/** GEX/J active messages: handlers, tokens, Short/Medium/Long requests and replies, negotiated payload. */
module org.gexj.am {
    requires transitive org.gexj.core;

    exports org.gexj.am;
    exports org.gexj.am.internal to org.gexj.rma, org.gexj.coll;

    provides org.gexj.internal.ClientLayer with org.gexj.am.internal.AmLayer;
}
