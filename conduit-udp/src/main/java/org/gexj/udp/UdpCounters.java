package org.gexj.udp;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the udp conduit counted on this rank: traffic, repairs and every datagram it dropped, by cause. Read through
 * {@code Client.conduitCounters()} and printed at exit with {@code GEX_STATS=1}.
 */
public final class UdpCounters {
    long datagramsSent;
    long datagramsReceived;
    long framesSent;
    long framesDelivered;
    long bytesSent;
    /** Datagrams sent with a checksum of their headers only ({@code GEX_UDP_CHECKSUM}). */
    long headerChecksumOnly;
    long retransmitted;
    long fastRetransmitted;
    long needlessReported;
    long acksSent;
    long duplicates;
    long droppedTruncated;
    long droppedVersion;
    long droppedChecksum;
    long droppedForeignJob;
    long droppedUnknownPeer;
    long droppedMalformed;
    long droppedOutOfWindow;
    long sendRefused;
    long windowStalls;

    /** The counters by name, in a fixed order. */
    public Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("udp.datagrams.sent", datagramsSent);
        m.put("udp.datagrams.received", datagramsReceived);
        m.put("udp.frames.sent", framesSent);
        m.put("udp.frames.delivered", framesDelivered);
        m.put("udp.bytes.sent", bytesSent);
        m.put("udp.checksum.header-only", headerChecksumOnly);
        m.put("udp.retransmitted", retransmitted);
        m.put("udp.retransmitted.fast", fastRetransmitted);
        m.put("udp.retransmitted.needless", needlessReported);
        m.put("udp.acks.sent", acksSent);
        m.put("udp.duplicates", duplicates);
        m.put("udp.dropped.truncated", droppedTruncated);
        m.put("udp.dropped.version", droppedVersion);
        m.put("udp.dropped.checksum", droppedChecksum);
        m.put("udp.dropped.foreign-job", droppedForeignJob);
        m.put("udp.dropped.unknown-peer", droppedUnknownPeer);
        m.put("udp.dropped.malformed", droppedMalformed);
        m.put("udp.dropped.out-of-window", droppedOutOfWindow);
        m.put("udp.send.refused", sendRefused);
        m.put("udp.window.stalls", windowStalls);
        return m;
    }
}
