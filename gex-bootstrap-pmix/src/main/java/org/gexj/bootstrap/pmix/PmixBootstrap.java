package org.gexj.bootstrap.pmix;

import org.gexj.Config;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.bootstrap.JobSecret;
import org.gexj.bootstrap.TcpBootstrap;
import org.gexj.bootstrap.pmix.ffm.PmixH;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.JobHealth;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Arrays;
import java.util.Collections;

/**
 * The bootstrap of a rank started by a resource manager's PMIx server ({@code mpirun}, {@code srun --mpi=pmix}):
 * rank, size and the ranks on this node come from PMIx ({@code PMIx_Init}, {@code PMIx_Get} of
 * {@code pmix.job.size} and {@code pmix.lpeers}); {@link #allgather} is {@code PMIx_Put} of a byte object under a key
 * of its own ({@code gexj.ag.<sequence>}), {@code PMIx_Commit}, {@code PMIx_Fence} collecting data and a
 * {@code PMIx_Get} per rank; {@link #barrier} a fence without data; {@link #abort} and {@link #exit}
 * {@code PMIx_Abort}, so the resource manager ends every rank; {@link #close} {@code PMIx_Finalize}.
 *
 * <p>What bounds the waits: {@code PMIx_Fence} blocks in the library. If a rank dies, the resource manager ends the
 * whole job (mpirun and srun kill every rank of a step when one exits abnormally or without finalizing), so a fence
 * never waits for a dead rank. A rank that is alive but never reaches the fence (ranks making different collective
 * calls) is bounded by {@code PMIX_TIMEOUT} = {@code GEX_BOOTSTRAP_TIMEOUT} seconds, which the PMIx server library
 * enforces until every rank of its node has arrived; the fence then fails with {@code PMIX_ERR_TIMEOUT}, and this rank
 * aborts the job naming itself.
 *
 * <p>Job id and secret: the namespace names the job, and the PMIx server authenticates its clients, so no secret is
 * needed to join. Conduits use {@code GEX_JOB_SECRET} to tell their traffic from another job's (udp's cookie), so
 * rank 0 draws one and the first allgather spreads it; {@link #jobId()} is the namespace made file-name safe plus 4
 * bytes of that secret, so a later job that reuses the namespace (mpirun's pid-derived one) cannot meet files a killed
 * job left in /dev/shm.
 */
public final class PmixBootstrap implements Bootstrap {
    /** The first byte of every value this bootstrap puts: a format version, and never an empty byte object. */
    static final byte VALUE_VERSION = 1;
    static final String KEY_PREFIX = "gexj.ag.";
    private static final int SECRET_BYTES = 32;

    private final String namespace;
    private final int rank;
    private final int size;
    /** Ranks on this node, ascending, or null if the server did not say. */
    private final int[] localPeers;
    private final JobHealth health;
    private final int timeoutSeconds;
    private final String jobId;
    private final byte[] secret;
    private int sequence;
    private boolean finished;

    private PmixBootstrap(String namespace, int rank, int size, int[] localPeers, JobHealth health,
                          int timeoutSeconds) {
        this.namespace = namespace;
        this.rank = rank;
        this.size = size;
        this.localPeers = localPeers;
        this.health = health;
        this.timeoutSeconds = timeoutSeconds;
        final byte[][] secrets = allgather(rank == 0 ? JobSecret.random(SECRET_BYTES) : new byte[0]);
        if (secrets[0].length != SECRET_BYTES) {
            throw new GexException("rank 0's job secret has " + secrets[0].length + " bytes, expected " + SECRET_BYTES);
        }
        this.secret = secrets[0];
        this.jobId = jobId(namespace, secret);
    }

    /**
     * True when the environment is a PMIx client's ({@code PMIX_NAMESPACE}, {@code PMIX_RANK}) and no GEX/J launcher's.
     */
    public static boolean requested(Config config) {
        return config.get("GEX_BOOTSTRAP", null) == null && config.get("PMIX_NAMESPACE", null) != null
            && config.get("PMIX_RANK", null) != null;
    }

    /**
     * Collective: {@code PMIx_Init}, the job's size and this node's ranks, and the job secret from rank 0.
     *
     * @throws GexException if libpmix does not load or the server refuses this process
     */
    public static PmixBootstrap init(Config config, JobHealth health) {
        final String where = "PMIX_NAMESPACE=" + config.get("PMIX_NAMESPACE", null) + " PMIX_RANK="
            + config.get("PMIX_RANK", null);
        if (PmixH.loadFailure() != null) {
            throw new GexException("this rank runs under a PMIx server (" + where + "), but "
                + PmixH.loadFailure().getMessage(), PmixH.loadFailure());
        }
        final int timeout = config.getInt(TcpBootstrap.COLLECTIVE_TIMEOUT, 300, 1, 86_400);
        final String namespace;
        final int rank;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment proc = arena.allocate(PmixH.PMIX_PROC);
            final int rc = PmixH.init(proc, MemorySegment.NULL, 0);
            if (rc != PmixH.PMIX_SUCCESS) {
                throw new GexException("PMIx_Init failed (" + where + ", " + PmixH.version() + "): "
                    + PmixH.errorString(rc));
            }
            namespace = PmixH.procNamespace(proc);
            rank = PmixH.procRank(proc);
        }
        try {
            final int size;
            final int[] local;
            try (Arena arena = Arena.ofConfined()) {
                final MemorySegment job = arena.allocate(PmixH.PMIX_PROC);
                PmixH.setProc(job, namespace, PmixH.PMIX_RANK_WILDCARD);
                size = getJobValue(arena, job, PmixH.PMIX_JOB_SIZE, PmixH::uint32, rank);
                if (size < 1 || rank < 0 || rank >= size) {
                    throw new GexException("PMIx says rank " + Integer.toUnsignedString(rank) + " of " + size
                        + " in namespace " + namespace);
                }
                String peers;
                try {
                    peers = getJobValue(arena, job, PmixH.PMIX_LOCAL_PEERS, PmixH::string, rank);
                } catch (GexException e) {
                    peers = null; // optional: only where to listen depends on it
                }
                local = peers == null ? null : parseLocalPeers(peers, size);
            }
            return new PmixBootstrap(namespace, rank, size, local, health, timeout);
        } catch (RuntimeException | Error e) {
            PmixH.finalizeClient();
            throw e;
        }
    }

    private static <T> T getJobValue(Arena arena, MemorySegment proc, String key,
                                     java.util.function.Function<MemorySegment, T> read, int rank) {
        final MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
        final int rc = PmixH.get(proc, arena.allocateFrom(key), MemorySegment.NULL, 0, out);
        if (rc != PmixH.PMIX_SUCCESS) {
            throw new GexException("rank " + rank + ": PMIx_Get(" + key + ") failed: " + PmixH.errorString(rc));
        }
        final MemorySegment value = out.get(ValueLayout.ADDRESS, 0).reinterpret(PmixH.PMIX_VALUE.byteSize());
        try {
            return read.apply(value);
        } finally {
            PmixH.valueRelease(value);
        }
    }

    /**
     * {@code pmix.lpeers}: the comma-separated ranks on this node, e.g. {@code 0,1,2,3}.
     *
     * @return the ranks, ascending
     * @throws IllegalArgumentException naming the value if a rank is not a number, repeats, or is outside [0, size)
     */
    static int[] parseLocalPeers(String value, int size) {
        final String[] parts = value.trim().split(",");
        final int[] peers = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                peers[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("pmix.lpeers '" + value + "': '" + parts[i] + "' is not a rank");
            }
            if (peers[i] < 0 || peers[i] >= size) {
                throw new IllegalArgumentException("pmix.lpeers '" + value + "': rank " + peers[i] + " outside [0, "
                    + size + ")");
            }
        }
        Arrays.sort(peers);
        for (int i = 1; i < peers.length; i++) {
            if (peers[i] == peers[i - 1]) {
                throw new IllegalArgumentException("pmix.lpeers '" + value + "': rank " + peers[i] + " twice");
            }
        }
        return peers;
    }

    /**
     * {@code pmix-<namespace>-<8 hex digits of the secret>}, with every character of the namespace outside
     * {@code [A-Za-z0-9_.-]} made {@code _} (the smp conduit names files after the job id) and at most 64 of them kept.
     */
    static String jobId(String namespace, byte[] secret) {
        String safe = namespace.replaceAll("[^A-Za-z0-9_.-]", "_");
        if (safe.length() > 64) {
            safe = safe.substring(0, 64);
        }
        return "pmix-" + safe + "-" + JobSecret.hex(Arrays.copyOf(secret, 4));
    }

    /** The value put for {@code blob}: {@link #VALUE_VERSION}, then the blob. */
    static byte[] encode(byte[] blob) {
        final byte[] v = new byte[blob.length + 1];
        v[0] = VALUE_VERSION;
        System.arraycopy(blob, 0, v, 1, blob.length);
        return v;
    }

    /**
     * The blob in a value rank {@code from} put.
     *
     * @throws GexException if the value is empty or of another format version
     */
    static byte[] decode(byte[] value, int from) {
        if (value.length == 0 || value[0] != VALUE_VERSION) {
            throw new GexException("rank " + from + "'s bootstrap value has " + (value.length == 0 ? "no bytes"
                : "format version " + value[0]) + ", expected version " + VALUE_VERSION
                + " (ranks of different GEX/J versions?)");
        }
        return Arrays.copyOfRange(value, 1, value.length);
    }

    /** The job's id for the conduits ({@code GEX_JOB_ID}). */
    public String jobId() {
        return jobId;
    }

    /** The job's secret for the conduits ({@code GEX_JOB_SECRET}), hexadecimal. */
    public String secretHex() {
        return JobSecret.hex(secret);
    }

    public String namespace() {
        return namespace;
    }

    /** The ranks on this node, ascending; null if the PMIx server did not say. */
    public int[] localPeers() {
        return localPeers == null ? null : localPeers.clone();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public synchronized byte[][] allgather(byte[] mine) {
        health.check();
        checkOpen();
        final String key = KEY_PREFIX + sequence++;
        final byte[][] all = new byte[size][];
        try (Arena arena = Arena.ofConfined()) {
            final byte[] encoded = encode(mine);
            final MemorySegment bytes = arena.allocate(encoded.length);
            MemorySegment.copy(encoded, 0, bytes, ValueLayout.JAVA_BYTE, 0, encoded.length);
            final MemorySegment value = arena.allocate(PmixH.PMIX_VALUE);
            PmixH.setByteObject(value, bytes);
            final MemorySegment cKey = arena.allocateFrom(key);
            check(PmixH.put(PmixH.PMIX_GLOBAL, cKey, value), "PMIx_Put(" + key + ")");
            check(PmixH.commit(), "PMIx_Commit");
            fence(arena, true, key);
            final MemorySegment proc = arena.allocate(PmixH.PMIX_PROC);
            final MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            final MemorySegment info = timeoutInfo(arena, 1);
            for (int r = 0; r < size; r++) {
                PmixH.setProc(proc, namespace, r);
                check(PmixH.get(proc, cKey, info, 1, out), "PMIx_Get(" + key + ") of rank " + r);
                final MemorySegment got = out.get(ValueLayout.ADDRESS, 0).reinterpret(PmixH.PMIX_VALUE.byteSize());
                try {
                    all[r] = decode(PmixH.byteObject(got), r);
                } finally {
                    PmixH.valueRelease(got);
                }
            }
        }
        return all;
    }

    @Override
    public synchronized void barrier() {
        health.check();
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            fence(arena, false, "barrier");
        }
    }

    /** A fence over the whole namespace, with {@code PMIX_TIMEOUT} and, for an allgather, {@code PMIX_COLLECT_DATA}. */
    private void fence(Arena arena, boolean collect, String what) {
        final MemorySegment info = timeoutInfo(arena, collect ? 2 : 1);
        if (collect) {
            PmixH.setBoolInfo(info.asSlice(PmixH.PMIX_INFO.byteSize()), PmixH.PMIX_COLLECT_DATA, true);
        }
        final int rc = PmixH.fence(MemorySegment.NULL, 0, info, collect ? 2 : 1);
        if (rc == PmixH.PMIX_ERR_TIMEOUT) {
            // the ranks' collectives are out of step: end the job rather than let anyone wait forever
            final String why = "rank " + rank + " waited " + timeoutSeconds + " s (" + TcpBootstrap.COLLECTIVE_TIMEOUT
                + ") in PMIx_Fence (" + what + ") for the other ranks; did every rank make the same collective calls?";
            health.fail(rank, why);
            abort(why);
            throw new GexTimeoutException(why);
        }
        check(rc, "PMIx_Fence (" + what + ")");
    }

    private MemorySegment timeoutInfo(Arena arena, int count) {
        final MemorySegment info = arena.allocate(PmixH.PMIX_INFO, count);
        PmixH.setIntInfo(info, PmixH.PMIX_TIMEOUT, timeoutSeconds);
        return info;
    }

    private void check(int rc, String call) {
        if (rc != PmixH.PMIX_SUCCESS) {
            // the server or a peer is gone (the resource manager is ending the job) or refuses the call
            health.fail(-1, "rank " + rank + ": " + call + " failed: " + PmixH.errorString(rc));
            health.check();
        }
    }

    private void checkOpen() {
        if (finished) {
            throw new IllegalStateException("rank " + rank + ": the PMIx bootstrap is closed");
        }
    }

    /**
     * The address conduits listen on by default: loopback when every rank is on this node, else this host's first
     * IPv4 address on an interface that is up and not loopback ({@code GEX_UDP_BIND} chooses another).
     */
    @Override
    public InetAddress localAddress() {
        if (localPeers != null && localPeers.length == size) {
            return InetAddress.getLoopbackAddress();
        }
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        } catch (SocketException e) {
            // no interface list: loopback below
        }
        return InetAddress.getLoopbackAddress();
    }

    /** Prints the reason and asks the resource manager to end every rank ({@code PMIx_Abort}). Never throws. */
    @Override
    public void abort(String reason) {
        end(1, reason);
    }

    /** {@code PMIx_Abort(code)}: the resource manager ends every rank; mpirun then exits with {@code code}. */
    @Override
    public void exit(int code) {
        end(code, "rank " + rank + " called exit(" + code + ")");
    }

    private synchronized void end(int code, String reason) {
        if (finished) {
            return;
        }
        finished = true;
        try {
            System.err.println("gex: rank " + rank + ": ending the job: " + reason);
            System.err.flush();
            try (Arena arena = Arena.ofConfined()) {
                PmixH.abort(code, arena.allocateFrom(reason));
            }
        } catch (RuntimeException | Error e) {
            System.err.println("gex: rank " + rank + ": PMIx_Abort failed: " + e);
        }
    }

    /** {@code PMIx_Finalize}: this rank ends normally. */
    @Override
    public synchronized void close() {
        if (finished) {
            return;
        }
        finished = true;
        final int rc = PmixH.finalizeClient();
        if (rc != PmixH.PMIX_SUCCESS) {
            System.err.println("gex: rank " + rank + ": PMIx_Finalize: " + PmixH.errorString(rc));
        }
    }

    @Override
    public String toString() {
        return "PmixBootstrap[namespace " + namespace + ", rank " + rank + " of " + size + ", local peers "
            + (localPeers == null ? "unknown" : Arrays.toString(localPeers)) + ", timeout " + timeoutSeconds + " s]";
    }
}
