package org.gexj.udp;

import org.agrona.DirectBuffer;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.spi.SegmentDescriptor;
import org.gexj.spi.SegmentRules;
import org.gexj.udp.io.DatagramPort;
import org.gexj.udp.io.EpollDatagramPort;
import org.gexj.udp.io.NioDatagramPort;
import org.gexj.udp.io.UdpAddresses;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

/**
 * The udp conduit ({@code GEX_CONDUIT=udp}): AM frames over UDP datagrams, made reliable here
 * ({@link UdpTransportAgent}: sequence numbers, cumulative and selective acknowledgements, retransmission with
 * back-off, a window per peer, fragmentation and reassembly), carried by Netty's native epoll socket where it loads
 * and NIO datagram channels otherwise. The portable conduit, for Ethernet clusters without RDMA; GASNet's udp-conduit
 * (AMUDP) is its model.
 *
 * <p>Nothing is cross-mapped and there is no native RMA: RMA runs over AM (gex-rma's engine) and AM Long is packed,
 * its payload in the frame. Frames are fragmented, so Long reaches {@code GEX_UDP_MAX_FRAME} (1 GiB by default);
 * Medium is GASNet's udp Medium, 65000 bytes, whose frame fits one datagram of the default size;
 * {@code GEX_AM_MAX_MEDIUM} raises it, to fragmented frames. Every datagram carries a version, a cookie derived from
 * the job's secret and a CRC32C, of the whole datagram when it crosses a link and of its header when it stays in this
 * host ({@code GEX_UDP_CHECKSUM}); datagrams that fail a check are dropped and counted ({@link #counters()}).
 *
 * <p>Each rank binds one receive socket to {@code GEX_UDP_BIND} (an address or an interface name; by default the
 * address its bootstrap connection uses) and publishes it through the bootstrap. Progress is {@link #poll}: receiving
 * is a non-blocking system call on the polling thread, never a hand-off from another thread.
 */
public final class UdpConduit implements Conduit {
    /** The base of the ranks' receive ports ({@link #port}). */
    static final String PORT = "GEX_UDP_PORT";
    private static final long PAGE = SegmentRules.PAGE_SIZE;
    /**
     * The Medium limit the AM layer takes by default (GASNet's udp-conduit's): its frame, with any args and the
     * 80-byte datagram header, fits one datagram of the default {@code GEX_UDP_DATAGRAM}, so a Medium is delivered
     * from the receive buffer in place and RMA over AM moves one datagram per chunk. 65536 bytes took two.
     */
    static final int MEDIUM = 65000;
    /**
     * Longest a closing rank waits for its last datagrams to be acknowledged. Not for a peer that has closed its
     * client: its socket may be gone, and its final barrier is complete (a rank with one barrier more than its
     * peers sent that peer its close barrier's arrival after the peer had left, and lingered 2 s for nothing).
     */
    private static final long LINGER_NANOS = 2_000_000_000L;

    private final int rank;
    private final int size;
    private final ConduitContext context;
    private final UdpSettings settings;
    private final DatagramPort port;
    private final UdpTransportAgent agent;
    private final Capabilities capabilities;
    private final Arena arena = Arena.ofShared();
    private volatile Map<String, Long> finalCounters;
    private volatile boolean closed;
    /** This rank's segment, once attached (by the one thread that attaches). */
    private MemorySegment segment;

    private UdpConduit(ConduitContext context) {
        this.context = context;
        this.rank = context.rank();
        this.size = context.size();
        this.settings = UdpSettings.from(context.config());
        final InetAddress bind = bindAddress(settings.bind(), context.bootstrap().localAddress());
        this.port = openPort(settings.transport(), bind, port(context), settings.socketBuffer(), size);
        try {
            final byte[][] addresses = context.bootstrap().allgather(UdpAddresses.encode(port.localAddress()));
            for (int peer = 0; peer < size; peer++) {
                port.connect(peer, UdpAddresses.decode(addresses[peer], peer), settings.socketBuffer());
            }
        } catch (RuntimeException | Error e) {
            port.close();
            throw e;
        }
        this.agent = new UdpTransportAgent(rank, size, cookie(context), settings, port,
            (peer, reason) -> context.health().fail(peer, reason));
        final int frame = settings.maxFrame();
        this.capabilities = Capabilities.builder("udp").maxFrameLength(frame)
            .maxMedium(MEDIUM, MEDIUM).maxLong(frame, frame).maxPackedLong(frame)
            .nativeRma(false).crossMapped(false).conduitBarrier(false).orderedChannels(true)
            .build();
        if (rank == 0) {
            System.err.println("gex: udp conduit over " + port.describe() + ", datagrams up to " + settings.datagram()
                + " B, " + settings.depth() + " in flight per peer (" + UdpSettings.DEPTH + ")"
                + ", " + coverage());
        }
    }

    private static String peers(int n) {
        return n + (n == 1 ? " peer" : " peers");
    }

    /** What rank 0's checksums cover, for the start-up line. */
    private String coverage() {
        int onHost = 0;
        for (int p = 0; p < size; p++) {
            onHost += p != rank && port.withinHost(p) ? 1 : 0;
        }
        final String setting = " (" + UdpSettings.CHECKSUM + "=" + settings.checksum().name().toLowerCase(Locale.ROOT)
            + ")";
        return switch (settings.checksum()) {
            case DATAGRAM -> "checksum of whole datagrams" + setting;
            case HEADER -> "checksum of the headers only" + setting;
            case AUTO -> "checksum of whole datagrams to " + peers(size - 1 - onHost) + " across a link, of the headers"
                + " only to " + peers(onHost) + " on this host" + setting;
        };
    }

    static UdpConduit open(ConduitContext context) {
        return new UdpConduit(context);
    }

    /**
     * {@code GEX_UDP_PORT}: 0 (the default), any free port; else a base, and rank r binds base + r, so the ranks of a
     * host never ask for one port and a firewall or a test knows each rank's.
     */
    static int port(ConduitContext context) {
        final int base = context.config().getInt(PORT, 0, 0, 65535);
        if (base != 0 && base + context.rank() > 65535) {
            throw new IllegalArgumentException(PORT + "=" + base + " gives rank " + context.rank() + " port "
                + (base + context.rank()) + ", outside [1, 65535]: with " + context.size() + " ranks the base must be"
                + " at most " + (65536 - context.size()));
        }
        return base == 0 ? 0 : base + context.rank();
    }

    private static DatagramPort openPort(String transport, InetAddress bind, int port, int socketBuffer, int peers) {
        if (transport.equals("nio") || (transport.equals("auto") && !EpollDatagramPort.isAvailable())) {
            return new NioDatagramPort(bind, port, socketBuffer, peers);
        }
        if (!EpollDatagramPort.isAvailable()) {
            throw new IllegalStateException(UdpSettings.TRANSPORT + "=epoll, but Netty's epoll transport does not load"
                + " here: " + EpollDatagramPort.unavailabilityCause());
        }
        return new EpollDatagramPort(bind, port, socketBuffer, peers);
    }

    /** {@code GEX_UDP_BIND} as an interface name or an address; the bootstrap's address without it. */
    static InetAddress bindAddress(String setting, InetAddress bootstrap) {
        if (setting == null) {
            return bootstrap;
        }
        try {
            final NetworkInterface nic = NetworkInterface.getByName(setting);
            if (nic != null) {
                InetAddress any = null;
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                    any = any == null ? a : any;
                }
                if (any != null) {
                    return any;
                }
                throw new IllegalArgumentException(UdpSettings.BIND + "=" + setting + " names an interface without"
                    + " an address");
            }
        } catch (SocketException e) {
            // not an interface name: try it as an address
        }
        try {
            return InetAddress.getByName(setting);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(UdpSettings.BIND + "=" + setting + " is neither an interface of this"
                + " host nor an address", e);
        }
    }

    /** 8 bytes of SHA-256 over the job's secret and id: datagrams of another job, or of none, do not match it. */
    static long cookie(ConduitContext context) {
        try {
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            final String secret = context.config().get("GEX_JOB_SECRET", "");
            sha.update(secret.isEmpty() ? new byte[0] : HexFormat.of().parseHex(secret));
            sha.update(("gexj-udp:" + context.jobId()).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(sha.digest()).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    private void checkTarget(int target) {
        if (target < 0 || target >= size) {
            throw new IllegalArgumentException("target rank " + target + " outside [0, " + size + ")");
        }
    }

    private static void checkChannel(int channel) {
        if (channel != REQUEST && channel != REPLY) {
            throw new IllegalArgumentException("channel " + channel + " is neither REQUEST (0) nor REPLY (1)");
        }
    }

    /** @return {@link #OK}, or {@link #NO_ROOM} when the peer's window of frames or bytes is full */
    @Override
    public int claim(Claim claim, int target, int channel, int length) {
        checkTarget(target);
        checkChannel(channel);
        if (length < 0 || length > settings.maxFrame()) {
            throw new IllegalArgumentException("frame length " + length + " outside [0, " + settings.maxFrame()
                + "] (maxFrameLength, " + UdpSettings.MAX_FRAME + ")");
        }
        return agent.claim(claim, target, channel, length);
    }

    @Override
    public void commit(Claim claim) {
        agent.commit(claim);
    }

    @Override
    public void abort(Claim claim) {
        agent.abort(claim);
    }

    @Override
    public int poll(ConduitListener listener, int channelMask, int limit) {
        return agent.poll(listener, channelMask, limit);
    }

    /**
     * Blocks on the receive socket (epoll transport; the NIO one parks): RMA runs over AM here, so a peer's get needs
     * this rank's poll, which a datagram's arrival now starts at once rather than at the end of a park.
     */
    @Override
    public boolean awaitActivity(long nanos) {
        if (closed) {
            return Conduit.super.awaitActivity(nanos);
        }
        return port.awaitDatagram(nanos);
    }

    @Override
    public AttachedSegments attachSegment(long size) {
        if (closed) {
            throw new IllegalStateException("udp rank " + rank + " is closed");
        }
        SegmentRules.checkAttach("udp", rank, segment, size);
        final MemorySegment local = arena.allocate(size, PAGE);
        segment = local;
        final ByteBuffer mine = ByteBuffer.allocate(16).putLong(local.address()).putLong(size);
        final byte[][] all = context.bootstrap().allgather(mine.array());
        final SegmentDescriptor[] descriptors = new SegmentDescriptor[this.size];
        for (int r = 0; r < this.size; r++) {
            final ByteBuffer b = ByteBuffer.wrap(all[r]);
            descriptors[r] = new SegmentDescriptor(b.getLong(), b.getLong(), new byte[0]);
        }
        return new AttachedSegments(local, descriptors);
    }

    @Override
    public Map<String, Long> counters() {
        final Map<String, Long> last = finalCounters;
        return last != null ? last : agent.snapshot();
    }

    /**
     * Waits, polling, up to 2 s for this rank's last datagrams to be acknowledged (a peer may still need an ack
     * for its own), then closes the sockets and frees the memory.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!context.health().failed()) {
                final long deadline = System.nanoTime() + LINGER_NANOS;
                final ConduitListener discard = new ConduitListener() {
                    @Override
                    public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
                        // after the closing barrier nothing new arrives; a late frame has no one to go to
                    }
                };
                final JobHealth health = context.health();
                while (!agent.settled(health::hasClosed) && System.nanoTime() < deadline) {
                    agent.poll(discard, ALL_CHANNELS, 64);
                    Thread.onSpinWait();
                }
                agent.flushAcks();
            }
        } finally {
            finalCounters = agent.snapshot();
            agent.close();
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "udp conduit of rank " + rank + " over " + port.describe();
    }
}
