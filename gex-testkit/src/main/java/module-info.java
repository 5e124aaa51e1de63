/** Conformance kits written once and subclassed by every conduit module's tests. */
module org.gexj.testkit {
    requires transitive org.gexj.rma;
    requires transitive org.gexj.coll;
    // ConduitKit runs its ranks as an InProcessJob, whose RankBody subclasses name
    requires transitive org.gexj.launch;
    requires transitive org.junit.jupiter.api;
    requires quicktheories;
    // AllocationKit reads the per-thread allocation counter of com.sun.management.ThreadMXBean
    requires jdk.management;

    exports org.gexj.testkit;

    // BadInputKit opens the conduit under test directly, to check its own attachSegment
    uses org.gexj.spi.ConduitProvider;

    provides org.gexj.spi.ConduitProvider with org.gexj.testkit.emu.EmuConduitProvider;
}
