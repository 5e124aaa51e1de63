/** gexplot: PNG charts of testam and testqueue outputs (GEX/J's or GASNet's: they print the same). */
module org.gexj.plot {
    requires xchart;
    requires java.desktop;

    exports org.gexj.plot;
}
