package org.gexj.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.wire.UdpHeaderFlyweight;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * An in-process network for {@link UdpTransportAgent}s that damages what it carries, reproducibly from a seed: each
 * datagram sent is, with the given probabilities, dropped, delivered twice, corrupted (one bit flipped), truncated,
 * or held back and delivered after later ones; and now and then a well-formed datagram of another job, or from a rank
 * outside the job, is slipped in. It counts every fault it injected, so a test can hold the agents' counters to them.
 */
final class LossyNetwork {
    /** Fault probabilities, each in [0, 1), tried in this order per datagram; reorder applies to the rest. */
    record Faults(double drop, double duplicate, double corrupt, double truncate, double reorder, double foreign,
                  double unknownPeer) {
    }

    private final SplittableRandom random;
    private final Faults faults;
    private final List<ArrayDeque<byte[]>> inboxes = new ArrayList<>();
    private final List<byte[]> late = new ArrayList<>();
    private final long cookie;
    private final int size;
    long droppedData;
    long droppedAcks;
    long duplicatedData;
    long corrupted;
    long truncated;
    long reordered;
    long foreign;
    long unknownPeer;

    LossyNetwork(long seed, Faults faults, int size, long cookie) {
        this.random = new SplittableRandom(seed);
        this.faults = faults;
        this.size = size;
        this.cookie = cookie;
        for (int r = 0; r < size; r++) {
            inboxes.add(new ArrayDeque<>());
        }
    }

    DatagramPort port(int rank) {
        return new DatagramPort() {
            @Override
            public boolean send(int peer, UnsafeBuffer data, int from, int to) {
                final byte[] d = new byte[to - from];
                data.getBytes(from, d);
                carry(peer, d);
                return true;
            }

            @Override
            public int receive(UnsafeBuffer into, int from, int to) {
                final byte[] d = inboxes.get(rank).pollFirst();
                if (d == null) {
                    releaseLate();
                    return -1;
                }
                into.putBytes(from, d, 0, Math.min(d.length, to - from));
                return Math.min(d.length, to - from);
            }

            @Override
            public InetSocketAddress localAddress() {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000 + rank);
            }

            @Override
            public void connect(int peer, InetSocketAddress address, int socketBuffer) {
            }

            @Override
            public boolean withinHost(int peer) {
                // a link that damages datagrams, whatever its addresses say
                return false;
            }

            @Override
            public String describe() {
                return "lossy in-process network";
            }

            @Override
            public void close() {
            }
        };
    }

    private void carry(int peer, byte[] d) {
        final boolean data = d.length >= 2 && d[1] == UdpHeaderFlyweight.TYPE_DATA;
        double x = random.nextDouble();
        if ((x -= faults.drop()) < 0) {
            if (data) {
                droppedData++;
            } else {
                droppedAcks++;
            }
            return;
        }
        if ((x -= faults.duplicate()) < 0) {
            if (data) {
                duplicatedData++;
            }
            deliver(peer, d.clone());
            deliver(peer, d);
        } else if ((x -= faults.corrupt()) < 0) {
            corrupted++;
            final int at = random.nextInt(d.length);
            d[at] ^= (byte) (1 << random.nextInt(8));
            deliver(peer, d);
            // the original is lost with its corruption: the sender repairs it like a drop
        } else if ((x -= faults.truncate()) < 0) {
            truncated++;
            deliver(peer, java.util.Arrays.copyOf(d, random.nextInt(d.length)));
        } else {
            deliver(peer, d);
        }
        if (random.nextDouble() < faults.foreign()) {
            foreign++;
            inboxes.get(peer).addLast(forged(cookie ^ 0x5A5A, 0, peer));
        }
        if (random.nextDouble() < faults.unknownPeer()) {
            unknownPeer++;
            inboxes.get(peer).addLast(forged(cookie, size + 3, peer));
        }
    }

    private void deliver(int peer, byte[] d) {
        if (random.nextDouble() < faults.reorder()) {
            reordered++;
            late.add(addressed(peer, d));
        } else {
            inboxes.get(peer).addLast(d);
        }
    }

    /** Held-back datagrams carry their target in 4 bytes before them. */
    private static byte[] addressed(int peer, byte[] d) {
        return ByteBuffer.allocate(4 + d.length).putInt(peer).put(d).array();
    }

    /** Delivers the held-back datagrams, in random order, once an inbox ran dry. */
    private void releaseLate() {
        while (!late.isEmpty()) {
            final byte[] a = late.remove(random.nextInt(late.size()));
            final ByteBuffer b = ByteBuffer.wrap(a);
            final int peer = b.getInt();
            inboxes.get(peer).addLast(java.util.Arrays.copyOfRange(a, 4, a.length));
        }
    }

    /** A well-formed DATA datagram with a valid checksum, from {@code source} with {@code cookie}. */
    private static byte[] forged(long cookie, int source, int target) {
        final ByteBuffer bytes = ByteBuffer.allocateDirect(UdpHeaderFlyweight.LENGTH + 8);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        new UdpHeaderFlyweight().wrap(buffer, 0).data(cookie, source, target, 0, 0, 8, 0, 8)
            .seal(UdpHeaderFlyweight.LENGTH + 8, false);
        final byte[] d = new byte[UdpHeaderFlyweight.LENGTH + 8];
        bytes.get(0, d);
        return d;
    }

    /** Nothing is waiting or held back anywhere. */
    boolean idle() {
        return late.isEmpty() && inboxes.stream().allMatch(ArrayDeque::isEmpty);
    }

    long corruptedOrTruncated() {
        return corrupted + truncated;
    }
}
