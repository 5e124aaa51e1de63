package org.gexj.udp;

import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.udp.wire.UdpHeaderFlyweight;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Datagrams from outside the job, sent by a plain {@link DatagramSocket} to a rank's real receive port (known through
 * {@code GEX_UDP_PORT}: rank r binds base + r), are dropped and counted by cause, and never dispatched: a datagram of
 * an earlier job on the same ports replayed at this one, one of this job with another job's cookie (checksum
 * recomputed), one of this job with a bit flipped (right cookie, bad checksum), a datagram of this job replayed
 * (a duplicate), and bytes too short for a header. The datagrams of the jobs are real ones, captured as they crossed
 * loopback by a packet socket ({@link PacketSniffer}: root). The in-process {@code UdpTransportProperties} forge
 * datagrams inside the conduit's own port; these come through the kernel from another socket.
 */
class UdpForeignDatagramTest {
    private static final Duration JOB = Duration.ofSeconds(60);
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    /** The header's flag byte (offset 3): the checksum covers the header only (UdpHeaderFlyweight). */
    private static final int HEADER_CHECKSUM_FLAG = 8;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void datagramsFromOutsideTheJobAreDroppedCountedAndNeverDispatched() throws Exception {
        final int base = freePortPair();
        final Map<String, String> env = Map.of("GEX_CONDUIT", "udp", "GEX_UDP_PORT", Integer.toString(base));
        final byte[] earlier;
        try (PacketSniffer sniffer = new PacketSniffer(base + 1)) {
            InProcessJob.run(2, JOB, env, UdpForeignDatagramTest::roundTrip);
            earlier = dataDatagram(sniffer, "job 1");
        }

        final AtomicReference<byte[]> current = new AtomicReference<>();
        try (PacketSniffer sniffer = new PacketSniffer(base + 1);
             DatagramSocket outsider = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            final InetSocketAddress rank1 = new InetSocketAddress(InetAddress.getLoopbackAddress(), base + 1);
            final AtomicBoolean checked = new AtomicBoolean();
            InProcessJob.run(2, JOB, env, client -> {
                final Am am = Am.of(client);
                final AtomicInteger handled = new AtomicInteger();
                final AtomicInteger replies = new AtomicInteger();
                final int reply = am.register(AmHandler.shortReply(0, (t, a) -> replies.incrementAndGet()));
                final int request = am.register(AmHandler.shortRequest(1, (t, a) -> {
                    handled.incrementAndGet();
                    t.replyShort(reply);
                }));
                client.barrier();
                if (client.rank() == 0) {
                    assertEquals(Am.OK, am.requestShort(1, request, 1));
                    pollUntil(client, () -> replies.get() == 1, "the reply");
                    // the foreign datagrams go while rank 1 checks them; rank 0 keeps polling (acknowledgements)
                    pollUntil(client, checked::get, "rank 1's checks");
                } else {
                    pollUntil(client, () -> handled.get() == 1, "rank 0's request");
                    current.set(dataDatagram(sniffer, "job 2"));
                    final byte[] ours = current.get();
                    final Map<String, Long> before = client.conduitCounters();
                    // 1: job 1's datagram, replayed at this job on the same port
                    send(outsider, earlier, rank1);
                    // 2: one of this job's with another job's cookie, sealed again: only the cookie is wrong
                    send(outsider, withCookie(ours, cookieOf(ours) + 1), rank1);
                    // 3: one of this job's with a bit of its sequence number flipped: the checksum no longer matches
                    final byte[] flipped = ours.clone();
                    flipped[24] ^= 0x10;
                    send(outsider, flipped, rank1);
                    // 4: one of this job's, unchanged: delivered already, so a duplicate
                    send(outsider, ours, rank1);
                    // 5: shorter than a header
                    send(outsider, new byte[40], rank1);
                    final long deadline = System.nanoTime() + WAIT_NS;
                    Map<String, Long> after = client.conduitCounters();
                    while (delta(before, after, "udp.dropped.foreign-job") < 2
                        || delta(before, after, "udp.dropped.checksum") < 1
                        || delta(before, after, "udp.duplicates") < 1
                        || delta(before, after, "udp.dropped.truncated") < 1) {
                        assertTrue(System.nanoTime() < deadline, "counters after 20 s: " + after + ", before: "
                            + before);
                        client.poll();
                        Thread.onSpinWait();
                        after = client.conduitCounters();
                    }
                    pollAWhile(client, 100); // anything dispatched by mistake would be now
                    after = client.conduitCounters();
                    assertEquals(2, delta(before, after, "udp.dropped.foreign-job"), after.toString());
                    assertEquals(1, delta(before, after, "udp.dropped.checksum"), after.toString());
                    // at least: rank 0 may resend a datagram needlessly meanwhile, which counts here too
                    assertTrue(delta(before, after, "udp.duplicates") >= 1, after.toString());
                    assertEquals(1, delta(before, after, "udp.dropped.truncated"), after.toString());
                    for (String cause : List.of("version", "unknown-peer", "malformed", "out-of-window")) {
                        assertEquals(0, delta(before, after, "udp.dropped." + cause), cause + ": " + after);
                    }
                    assertEquals(0, delta(before, after, "udp.frames.delivered"), "frames delivered: " + after);
                    assertEquals(1, handled.get(), "the request handler ran for rank 0's request only");
                    checked.set(true);
                }
                client.barrier();
                roundTrip(client); // the job goes on
            });
        }
        assertTrue(cookieOf(earlier) != cookieOf(current.get()), "jobs 1 and 2 have different cookies");
    }

    /** Both ranks send a Short request to the other and wait for its reply. */
    private static void roundTrip(org.gexj.Client client) {
        final Am am = Am.of(client);
        final AtomicInteger replies = new AtomicInteger();
        final int reply = am.register(AmHandler.shortReply(0, (t, a) -> replies.incrementAndGet()));
        final int request = am.register(AmHandler.shortRequest(0, (t, a) -> t.replyShort(reply)));
        client.barrier();
        assertEquals(Am.OK, am.requestShort(1 - client.rank(), request));
        pollUntil(client, () -> replies.get() == 1, "a round trip");
        client.barrier();
    }

    private static void pollUntil(org.gexj.Client client, java.util.function.BooleanSupplier done, String what) {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "rank " + client.rank() + ": no " + what + " in 20 s");
            client.poll();
            Thread.onSpinWait();
        }
    }

    private static void pollAWhile(org.gexj.Client client, long millis) {
        final long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            client.poll();
            Thread.onSpinWait();
        }
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String counter) {
        assertTrue(after.containsKey(counter), "no counter " + counter + " in " + after);
        return after.get(counter) - before.get(counter);
    }

    /**
     * A captured data datagram (it carries a frame: a header and at least one byte). The sniffer's thread reads the
     * packet socket on its own schedule, so a datagram the rank has received may not be captured yet: wait for it.
     */
    private static byte[] dataDatagram(PacketSniffer sniffer, String job) throws InterruptedException {
        final long deadline = System.nanoTime() + WAIT_NS;
        do {
            for (byte[] d : sniffer.payloads()) {
                if (d.length > UdpHeaderFlyweight.LENGTH && d[0] == UdpHeaderFlyweight.VERSION
                    && d[1] == UdpHeaderFlyweight.TYPE_DATA) {
                    return d;
                }
            }
            Thread.sleep(1);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("no data datagram of " + job + " captured among " + sniffer.payloads().size()
            + " in " + WAIT_NS / 1_000_000_000L + " s");
    }

    private static long cookieOf(byte[] datagram) {
        return new org.agrona.concurrent.UnsafeBuffer(datagram).getLong(8, java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /** {@code datagram} with another cookie, its checksum computed again over what it covered. */
    private static byte[] withCookie(byte[] datagram, long cookie) {
        // the flyweight checksums through a direct buffer
        final java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(datagram.length).put(datagram).clear();
        final org.agrona.concurrent.UnsafeBuffer b = new org.agrona.concurrent.UnsafeBuffer(direct);
        b.putLong(8, cookie, java.nio.ByteOrder.LITTLE_ENDIAN);
        final boolean headerOnly = (datagram[3] & HEADER_CHECKSUM_FLAG) != 0;
        new UdpHeaderFlyweight().wrap(b, 0).seal(datagram.length, headerOnly);
        final byte[] copy = new byte[datagram.length];
        b.getBytes(0, copy);
        return copy;
    }

    private static void send(DatagramSocket socket, byte[] datagram, InetSocketAddress to) throws IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, to));
    }

    /** A base port whose port and the next are free on 127.0.0.1 now. */
    private static int freePortPair() {
        for (int attempt = 0; attempt < 100; attempt++) {
            final int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            try (DatagramSocket a = new DatagramSocket(base, InetAddress.getLoopbackAddress());
                 DatagramSocket b = new DatagramSocket(base + 1, InetAddress.getLoopbackAddress())) {
                return base;
            } catch (SocketException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no free pair of UDP ports on 127.0.0.1 in 100 attempts");
    }
}
