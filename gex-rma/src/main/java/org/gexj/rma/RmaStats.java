package org.gexj.rma;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the RMA layer of one rank started, by kind ({@code rma.put.blocking}, {@code rma.put.nb},
 * {@code rma.put.nbi}, the same for get) and bytes ({@code rma.bytes.put}, {@code rma.bytes.get}); value puts and
 * gets count as the blocking or non-blocking operation they are. RMA over AM also shows in the AM layer's counters,
 * as the AMs that carry it. {@link LongAdder}s: any thread starts operations, and an uncontended increment allocates
 * nothing. Counting is on only with {@code GEX_STATS=1}, as the AM layer's.
 */
final class RmaStats {
    static final int BLOCKING = 0;
    static final int NB = 1;
    static final int NBI = 2;
    private static final String[] KIND = {"blocking", "nb", "nbi"};
    private final LongAdder[] puts = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder[] gets = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder bytesPut = new LongAdder();
    private final LongAdder bytesGot = new LongAdder();
    private final boolean on;

    RmaStats(boolean on) {
        this.on = on;
    }

    void put(int kind, long nbytes) {
        if (!on) {
            return;
        }
        puts[kind].increment();
        bytesPut.add(nbytes);
    }

    void get(int kind, long nbytes) {
        if (!on) {
            return;
        }
        gets[kind].increment();
        bytesGot.add(nbytes);
    }

    Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (int k = 0; k < KIND.length; k++) {
            m.put("rma.put." + KIND[k], puts[k].sum());
        }
        for (int k = 0; k < KIND.length; k++) {
            m.put("rma.get." + KIND[k], gets[k].sum());
        }
        m.put("rma.bytes.put", bytesPut.sum());
        m.put("rma.bytes.get", bytesGot.sum());
        return m;
    }
}
