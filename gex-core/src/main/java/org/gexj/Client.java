package org.gexj;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Conduit;
import org.gexj.spi.FrameHandler;
import org.gexj.spi.JobHealth;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One rank's membership of a job ({@code gex_Client_t} with its primordial endpoint and team). Created
 * collectively by {@link Gex#init}; closed collectively.
 *
 * <p>Threads: any thread may send; {@link #poll()} runs handlers on one thread at a time (a thread that finds
 * another one polling returns at once). Handlers run only inside {@code poll}, waits and sends that wait for
 * resources.
 */
public final class Client implements AutoCloseable {
    /** Segment sizes are multiples of this ({@code GASNET_PAGESIZE}). */
    public static final long PAGE_SIZE = 4096;
    private static final int POLL_LIMIT = 64;

    private final String name;
    private final int rank;
    private final int size;
    private final String jobId;
    private final Conduit conduit;
    private final Bootstrap bootstrap;
    private final JobHealth health;
    private final Config config;
    private final long maxSegmentSize;
    private final ReentrantLock pollLock = new ReentrantLock();
    private final Event[] nbi = new Event[Ec.COUNT];
    private final Map<Class<?>, Object> extensions = new HashMap<>();
    /*
     * Waiting: spin, then yield (free when no other thread wants the core, so a peer's message is seen within
     * a microsecond), and only after ~10 ms of nothing park, because waking a parked core costs ~25 us here.
     */
    private final ThreadLocal<BackoffIdleStrategy> idle =
        ThreadLocal.withInitial(() -> new BackoffIdleStrategy(1_000, 20_000, 10_000, 1_000_000));

    private volatile FrameHandler frameHandler;
    private volatile Segment segment;
    private volatile boolean closed;
    /*
     * Handler context: handlers run only on the thread holding pollLock, and only that thread writes these two, so a
     * racy read by another thread never sees its own Thread here.
     */
    private Thread handlerThread;
    private String handlerWhat;
    /*
     * Per-thread state that most threads never have: NPAM prepare..commit and NBI access regions. The counters of
     * threads holding some let the data path skip the thread-local lookup.
     */
    private final AtomicInteger npamThreads = new AtomicInteger();
    private final ThreadLocal<String[]> npam = ThreadLocal.withInitial(() -> new String[1]);
    private final AtomicInteger regionThreads = new AtomicInteger();
    private final ThreadLocal<Event[]> region = ThreadLocal.withInitial(() -> new Event[1]);

    Client(String name, int rank, int size, String jobId, Conduit conduit, Bootstrap bootstrap, JobHealth health,
           Config config) {
        this.name = name;
        this.rank = rank;
        this.size = size;
        this.jobId = jobId;
        this.conduit = conduit;
        this.bootstrap = bootstrap;
        this.health = health;
        this.config = config;
        this.maxSegmentSize = config.getLong("GEX_MAX_SEGSIZE", 1L << 34, PAGE_SIZE, Long.MAX_VALUE);
        for (int i = 0; i < nbi.length; i++) {
            nbi[i] = new Event(this);
        }
    }

    public String name() {
        return name;
    }

    /** This process's rank, 0..size-1 ({@code gex_System_QueryJobRank}). */
    public int rank() {
        return rank;
    }

    /** Number of ranks ({@code gex_System_QueryJobSize}). */
    public int size() {
        return size;
    }

    public String jobId() {
        return jobId;
    }

    public Capabilities capabilities() {
        return conduit.capabilities();
    }

    public Config config() {
        return config;
    }

    /** Largest segment {@link #attachSegment} accepts ({@code GEX_MAX_SEGSIZE}). */
    public long maxSegmentSize() {
        return maxSegmentSize;
    }

    /**
     * Collective: allocates this rank's segment and learns every peer's size; implicit barrier.
     *
     * @param bytes a non-zero multiple of {@link #PAGE_SIZE}, at most {@link #maxSegmentSize()}
     */
    public Segment attachSegment(long bytes) {
        checkOpen();
        checkNotRestricted("attachSegment");
        if (bytes <= 0 || bytes % PAGE_SIZE != 0 || bytes > maxSegmentSize) {
            throw new IllegalArgumentException("segment size " + bytes + " must be a non-zero multiple of "
                + PAGE_SIZE + " and at most " + maxSegmentSize + " (GEX_MAX_SEGSIZE)");
        }
        if (segment != null) {
            throw new IllegalStateException("a segment is already attached (" + segment.size()
                + " bytes); attachSegment is called once per process");
        }
        final MemorySegment memory = conduit.attachSegment(bytes);
        final byte[][] all = bootstrap.allgather(ByteBuffer.allocate(8).putLong(bytes).array());
        final long[] sizes = new long[size];
        for (int r = 0; r < size; r++) {
            sizes[r] = ByteBuffer.wrap(all[r]).getLong();
        }
        segment = new Segment(memory, sizes, rank);
        barrier();
        return segment;
    }

    /** The attached segment. */
    public Segment segment() {
        final Segment s = segment;
        if (s == null) {
            throw new IllegalStateException("no segment attached: call attachSegment first");
        }
        return s;
    }

    public boolean hasSegment() {
        return segment != null;
    }

    /**
     * Runs pending handlers ({@code gasnet_AMPoll}). Checks job health first, so the usual wait
     * {@code while (!done) client.poll();} ends with an exception instead of spinning forever on a dead peer.
     *
     * @return number of frames handled (0 if another thread is polling)
     * @throws HandlerContextException from a handler
     * @throws PeerFailedException once a peer or the launcher has failed
     */
    public int poll() {
        checkNotRestricted("poll");
        health.check();
        return pollQuietly();
    }

    private int pollQuietly() {
        return pollChannels(Conduit.ALL_CHANNELS);
    }

    /** Polls the channels in {@code mask} unless another thread is polling (the handler's own thread may nest). */
    private int pollChannels(int mask) {
        final FrameHandler h = frameHandler;
        if (h == null || !pollLock.tryLock()) {
            return 0;
        }
        try {
            return conduit.poll(h, mask, POLL_LIMIT);
        } finally {
            pollLock.unlock();
        }
    }

    /** Collective barrier over all ranks; polls (runs handlers) while waiting. */
    public void barrier() {
        checkOpen();
        checkNotRestricted("barrier");
        conduit.barrierNotify();
        final BackoffIdleStrategy idler = idle.get();
        idler.reset();
        while (!conduit.barrierTry()) {
            health.check();
            idler.idle(pollQuietly());
        }
    }

    /** @return true if every NBI operation of the categories in {@code mask} has completed; does not poll */
    public boolean nbiTest(int mask) {
        Ec.checkMask(mask);
        for (int i = 0; i < Ec.COUNT; i++) {
            if ((mask & (1 << i)) != 0 && !nbi[i].test()) {
                return false;
            }
        }
        return true;
    }

    /** Polls until every NBI operation of the categories in {@code mask} has completed. */
    public void nbiWait(int mask) {
        Ec.checkMask(mask);
        for (int i = 0; i < Ec.COUNT; i++) {
            if ((mask & (1 << i)) != 0) {
                nbi[i].await();
            }
        }
    }

    /** Starts collecting this thread's NBI operations into one event; regions do not nest, threads have their own. */
    public void beginAccessRegion() {
        checkNotRestricted("beginAccessRegion");
        final Event[] mine = region.get();
        if (mine[0] != null) {
            throw new IllegalStateException("an NBI access region is already open on this thread");
        }
        mine[0] = new Event(this);
        regionThreads.incrementAndGet();
    }

    /** Ends this thread's access region and returns the event of every NBI operation issued inside it. */
    public Event endAccessRegion() {
        final Event[] mine = region.get();
        final Event e = mine[0];
        if (e == null) {
            throw new IllegalStateException("no NBI access region is open on this thread");
        }
        mine[0] = null;
        regionThreads.decrementAndGet();
        return e;
    }

    /**
     * Library use: the event that tracks a new NBI operation of {@code category} issued by this thread — the
     * open access region's, or the category's.
     */
    public Event nbiEvent(int category) {
        if (regionThreads.get() != 0) {
            final Event r = region.get()[0];
            if (r != null) {
                return r;
            }
        }
        return nbi[Ec.index(category)];
    }

    /** Library use: polls until {@code event} completes; checks handler context and job health. */
    public void awaitEvent(Event event) {
        checkNotRestricted("waiting for an event");
        final BackoffIdleStrategy idler = idle.get();
        idler.reset();
        while (!event.test()) {
            health.check();
            idler.idle(pollQuietly());
        }
    }

    /**
     * Library use: one step of a wait for resources (back-pressure). Runs handlers when allowed — only reply
     * handlers inside a handler or an NPAM pair, which is what lets a blocked reply drain the path it waits on —
     * checks job health, backs off.
     */
    public void progressWhileBlocked() {
        health.check();
        final int mask = inRestrictedContext() ? 1 << Conduit.REPLY : Conduit.ALL_CHANNELS;
        idle.get().idle(pollChannels(mask));
    }

    /** Library use: resets this thread's back-off before a new wait. */
    public void resetBackoff() {
        idle.get().reset();
    }

    /** Library use: the AM layer installs the dispatcher of inbound frames. */
    public void setFrameHandler(FrameHandler handler) {
        this.frameHandler = handler;
    }

    /**
     * Library use (the AM dispatcher, inside {@link #poll}): the polling thread runs a handler, where polling,
     * waiting and barriers are forbidden. Handlers nest only through a reply poll inside a handler.
     *
     * @return the previous handler context, to pass to {@link #exitHandler}
     */
    public String enterHandler(String what) {
        final String previous = handlerThread == Thread.currentThread() ? handlerWhat : null;
        handlerThread = Thread.currentThread();
        handlerWhat = what;
        return previous;
    }

    /** Library use: leaves the handler context entered by {@link #enterHandler}. */
    public void exitHandler(String previous) {
        handlerWhat = previous;
        if (previous == null) {
            handlerThread = null;
        }
    }

    /** Library use: this thread is between an NPAM prepare and its commit or cancel ({@code what} non-null), or not. */
    public void setNpam(String what) {
        final String[] mine = npam.get();
        if ((mine[0] == null) != (what == null)) {
            npamThreads.addAndGet(what == null ? -1 : 1);
        }
        mine[0] = what;
    }

    /** @return the NPAM description set on this thread by {@link #setNpam}, or null */
    public String npamContext() {
        return npamThreads.get() == 0 ? null : npam.get()[0];
    }

    /** @return true if the calling thread is inside a handler or an NPAM prepare/commit pair */
    public boolean inRestrictedContext() {
        return handlerThread == Thread.currentThread() || npamContext() != null;
    }

    /** @throws HandlerContextException if the calling thread is in a handler or NPAM context */
    public void checkNotRestricted(String operation) {
        if (handlerThread == Thread.currentThread()) {
            throw new HandlerContextException(operation + " is not allowed inside " + handlerWhat);
        }
        final String n = npamContext();
        if (n != null) {
            throw new HandlerContextException(operation + " is not allowed inside " + n);
        }
    }

    /** Library use: the conduit. */
    public Conduit conduit() {
        return conduit;
    }

    public JobHealth health() {
        return health;
    }

    /** Library use: one instance of an extension (Am, Rma) per client. */
    @SuppressWarnings("unchecked")
    public synchronized <T> T extension(Class<T> type, Function<Client, T> factory) {
        // not computeIfAbsent: one extension's factory creates another (Rma creates Am)
        Object e = extensions.get(type);
        if (e == null) {
            e = factory.apply(this);
            extensions.put(type, e);
        }
        return (T) e;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("client " + name + " rank " + rank + " is closed");
        }
    }

    /**
     * Ends the whole job abnormally ({@code gasnet_exit} with a failure): every other rank's waits end in
     * {@link PeerFailedException} naming this rank, and this client's resources are released. Never throws.
     */
    /**
     * {@code gasnet_exit}: ends the whole job with {@code code}. Not collective: any rank may call it, from any
     * context; every other rank ends too (under gexrun their processes exit with {@code code}, and so does gexrun; in
     * an {@code InProcessJob} their waits throw {@link PeerFailedException}). Never returns: the process halts, or, in
     * a rank that is a thread, {@link JobExitException} unwinds it.
     *
     * @throws IllegalArgumentException if {@code code} is outside [0, 255] (nothing is done)
     */
    public void exit(int code) {
        if (code < 0 || code > 255) {
            throw new IllegalArgumentException("exit code " + code + " outside [0, 255]");
        }
        final boolean wasClosed = closed;
        closed = true;
        health.fail(rank, "rank " + rank + " called exit(" + code + ")");
        try {
            if (!wasClosed) {
                conduit.close();
            }
        } finally {
            bootstrap.exit(code);
        }
        if (config.getBoolean("GEX_EXIT_ON_FAILURE", false)) {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        throw new JobExitException(rank, code);
    }

    public void abort(String reason) {
        if (closed) {
            return;
        }
        closed = true;
        health.fail(rank, reason);
        try {
            conduit.close();
        } finally {
            bootstrap.abort("rank " + rank + " aborted: " + reason);
        }
    }

    /**
     * Collective orderly exit: a final barrier (so no peer still sends to this rank), then the conduit and the
     * bootstrap are closed. After a peer failure it skips the barrier and only releases resources.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        checkNotRestricted("close");
        try {
            if (!health.failed()) {
                barrier();
            }
        } finally {
            closed = true;
            try {
                conduit.close();
            } finally {
                if (health.failed()) {
                    bootstrap.abort("rank " + rank + " closing after failure: " + health.failure().getMessage());
                } else {
                    bootstrap.close();
                }
            }
        }
    }
}
