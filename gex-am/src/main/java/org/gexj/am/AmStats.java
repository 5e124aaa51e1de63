package org.gexj.am;

import org.agrona.DirectBuffer;
import org.gexj.am.wire.AmFrameFlyweight;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the AM layer of one rank counted, as GASNet's {@code GASNET_STATS} does: AMs sent and handled by category and
 * direction, their payload bytes, and how often a send found its path full and had to wait. Any thread sends, so the
 * counters are {@link LongAdder}s: uncontended, an increment is one CAS and allocates nothing. Names are stable:
 * {@code am.sent.short.request}, {@code am.received.long.reply}, {@code am.bytes.sent}, {@code am.stalls}...
 * An implicit reply (a request handler that sent none) counts as a Short reply, since one goes on the wire.
 *
 * <p>Counting is on only with {@code GEX_STATS=1}, as GASNet counts only in a stats build: even uncontended atomic
 * adds cost a shared-memory round trip of about 0.3 us some 10 to 30 %.
 */
final class AmStats {
    private static final String[] CATEGORY = {"short", "medium", "long"};
    private final LongAdder[] sent = adders(6);
    private final LongAdder[] received = adders(6);
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder stalls = new LongAdder();
    private final boolean on;

    AmStats(boolean on) {
        this.on = on;
    }

    /** A frame about to be committed: its header says what it is. */
    void sent(DirectBuffer b, int at) {
        if (!on) {
            return;
        }
        final int type = b.getByte(at + AmFrameFlyweight.TYPE_OFFSET);
        sent[index(type & AmFrameFlyweight.TYPE_CATEGORY_MASK, (type & AmFrameFlyweight.TYPE_REQUEST) != 0)]
            .increment();
        bytesSent.add(b.getInt(at + AmFrameFlyweight.LENGTH_OFFSET));
    }

    void received(int category, boolean request, long payloadBytes) {
        if (!on) {
            return;
        }
        received[index(category, request)].increment();
        bytesReceived.add(payloadBytes);
    }

    /** A send found the conduit back-pressured and waited (polling) for room. */
    void stalled() {
        if (!on) {
            return;
        }
        stalls.increment();
    }

    Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (String direction : new String[] {"sent", "received"}) {
            final LongAdder[] a = direction.equals("sent") ? sent : received;
            for (int c = 0; c < CATEGORY.length; c++) {
                m.put("am." + direction + "." + CATEGORY[c] + ".request", a[index(c, true)].sum());
                m.put("am." + direction + "." + CATEGORY[c] + ".reply", a[index(c, false)].sum());
            }
        }
        m.put("am.bytes.sent", bytesSent.sum());
        m.put("am.bytes.received", bytesReceived.sum());
        m.put("am.stalls", stalls.sum());
        return m;
    }

    private static int index(int category, boolean request) {
        return 2 * category + (request ? 0 : 1);
    }

    private static LongAdder[] adders(int n) {
        final LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }
}
