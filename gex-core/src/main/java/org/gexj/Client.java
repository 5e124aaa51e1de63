package org.gexj;

import org.gexj.internal.ConduitIdleStrategy;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.WaitSettings;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Bootstrap;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;
import org.gexj.spi.SegmentRules;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One rank's membership of a job ({@code gex_Client_t} with its primordial endpoint and team). Created
 * collectively by {@link Gex#init}; closed collectively.
 *
 * <p>Threads: any thread may send; {@link #poll()} runs handlers on one thread at a time (a thread that finds
 * another one polling returns at once). Handlers run only inside {@code poll}, waits and sends that wait for
 * resources.
 *
 * <p>Handler exceptions: a handler runs inside whatever call polls (poll, barrier, a send blocked on a full path, an
 * event's or RMA call's wait, a send to this rank), and an exception it throws propagates from that call.
 * {@link #barrier()} completes its phase first; a blocked send has then sent nothing; an RMA call's operation stays in
 * flight and completes in later polls.
 */
public final class Client implements AutoCloseable {
    /** Segment sizes are multiples of this ({@code GASNET_PAGESIZE}): the operating system's page size. */
    public static final long PAGE_SIZE = SegmentRules.PAGE_SIZE;
    private static final int POLL_LIMIT = 64;
    /**
     * How long a wait may go on after a peer closed its client: long enough for that peer's last messages, sent before
     * it left its final barrier, to arrive.
     */
    private static final long CLOSED_PEER_GRACE_NS = 1_000_000_000L;

    static {
        CoreAccess.install(new ClientAccess());
    }

    private final String name;
    private final int rank;
    private final int size;
    private final String jobId;
    final Conduit conduit;
    private final Bootstrap bootstrap;
    final JobHealth health;
    private final Config config;
    private final long maxSegmentSize;
    /** Held by the thread running handlers: in a poll, or delivering an AM to this rank. */
    private final DeliveryLock pollLock = new DeliveryLock();
    /*
     * The id of the thread running a handler (0: none) and what it runs; only the delivery lock's holder writes them,
     * so a racy read never sees its own id here. Here, not with the NPAM context, to save every send's check a load.
     * An id, and what only when it changes: every AM enters a handler, and G1 fences reference stores (DESIGN 12).
     */
    private long handlerThreadId;
    private String handlerWhat;
    /** Which threads are in an NPAM pair; read by the AM layer through {@link ClientAccess}. */
    final NpamContext npam = new NpamContext();
    /** Each thread's NBI events, one per category: GASNet's NBI completion is per thread. */
    private final ThreadNbiEvents nbi = new ThreadNbiEvents(this);
    final EventPool events = new EventPool(this);
    private final Map<Class<?>, Object> extensions = new HashMap<>();
    /** How threads wait: {@code GEX_WAIT_*}, see {@link WaitSettings}. */
    final ThreadLocal<ConduitIdleStrategy> idle;

    /** The AM layer's listener: frames other than the core's, remote writes. */
    volatile ConduitListener amListener;
    /** The layers' counters (AM, RMA), in the order the layers were created. */
    final java.util.List<java.util.function.Supplier<java.util.Map<String, Long>>> layerStats =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Where RMA completions go, by the owner in an operation id's top byte ({@link CoreAccess#OWNER_SHIFT}). */
    final ConduitListener[] rmaSinks = new ConduitListener[CoreAccess.OWNERS];
    private final ConduitListener dispatch = new ClientDispatch(this);
    final DisseminationBarrier amBarrier;
    /** A layer's work in polls that may send (collectives). */
    final LayerProgress progress = new LayerProgress();
    /** Some layer takes RMA completions, which only {@link ClientDispatch} routes. */
    volatile boolean routesRma;
    private volatile Segment segment;
    /** Memory other ranks may reach by descriptor ({@link #register}). */
    final RegistrationTable registrations;
    private volatile boolean closed;
    /** {@link #close()} has begun: set before its final barrier. */
    private volatile boolean closing;
    /* Threads in an NBI access region: most have none, so the count lets the data path skip the thread-local. */
    private final AtomicInteger regionThreads = new AtomicInteger();
    private final ThreadLocal<Event[]> region = ThreadLocal.withInitial(() -> new Event[1]);

    /** @param hostRanks the job's ranks on this host, this one included ({@link HostRanks}) */
    Client(String name, int rank, int size, String jobId, Conduit conduit, Bootstrap bootstrap, JobHealth health,
           Config config, int hostRanks) {
        this.name = name;
        this.rank = rank;
        this.size = size;
        this.jobId = jobId;
        this.conduit = conduit;
        this.bootstrap = bootstrap;
        this.health = health;
        this.config = config;
        this.maxSegmentSize = config.getLong("GEX_MAX_SEGSIZE", 1L << 34, PAGE_SIZE, Long.MAX_VALUE);
        this.registrations = new RegistrationTable(rank, conduit.registeredAccess());
        final boolean sharedCores = hostRanks > Runtime.getRuntime().availableProcessors();
        final WaitSettings wait = WaitSettings.of(config, conduit.yieldsWhileWaiting(), sharedCores);
        this.idle = ThreadLocal.withInitial(() -> wait.newIdleStrategy(conduit));
        this.amBarrier = DisseminationBarrier.conduitsInstead(config, conduit.capabilities()) ? null
            : new DisseminationBarrier(conduit, rank, size);
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
        if (!SegmentRules.validSize(bytes) || bytes > maxSegmentSize) {
            throw new IllegalArgumentException("segment size " + bytes + " must be a non-zero multiple of "
                + PAGE_SIZE + " and at most " + maxSegmentSize + " (GEX_MAX_SEGSIZE)");
        }
        if (segment != null) {
            throw new IllegalStateException("a segment is already attached (" + segment.size()
                + " bytes); attachSegment is called once per process");
        }
        final AttachedSegments attached = conduit.attachSegment(bytes);
        segment = new Segment(attached, rank);
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
     * Registers native memory, anywhere, for other ranks' puts and gets through its descriptor (Rma's descriptor
     * forms); close the registration to deregister it ({@link Registration}).
     *
     * @param memory native memory whose arena lets any thread access it (the data may be moved by the polling thread)
     * @throws IllegalArgumentException if it is a heap segment, confined to one thread, or its arena is closed
     */
    public Registration register(MemorySegment memory) {
        checkOpen();
        checkNotRestricted("register");
        return registrations.register(memory);
    }

    /**
     * Runs pending handlers ({@code gasnet_AMPoll}). Checks job health first, so the usual wait
     * {@code while (!done) client.poll();} ends with an exception instead of spinning forever on a dead peer.
     *
     * @return number of frames handled (0 if another thread is polling)
     * @throws HandlerContextException from a handler
     * @throws PeerFailedException once a peer or the launcher has failed
     * @throws GexException once a peer has closed its client: nothing this rank waits for can come any more (this
     *                      rank made more collective calls than that peer did)
     * @throws IllegalStateException if this client is closed
     */
    public int poll() {
        checkOpenAndNotRestricted("poll");
        checkCanWait("a poll loop");
        return pollQuietly();
    }

    /**
     * Every wait checks that it can still complete: no peer failed, and no peer closed its client (a peer leaves its
     * final barrier only once every rank has joined it, so any wait afterwards is a collective this peer skipped).
     */
    private void checkCanWait(String what) {
        checkOpen(); // another thread closed this client: nothing waited for can come any more
        health.check();
        final int closed = health.closedPeer();
        if (closed >= 0 && System.nanoTime() - health.closedAtNanos() > CLOSED_PEER_GRACE_NS) {
            throw new GexException("rank " + rank + ": " + what + " can never complete: rank " + closed
                + " has closed its client, whose close() ended with a barrier every rank had joined; did this rank call"
                + " barrier() (or another collective) more often than rank " + closed + "?");
        }
    }

    private int pollQuietly() {
        return pollChannels(Conduit.ALL_CHANNELS);
    }

    /** Polls the channels in {@code mask} unless another thread is polling (the handler's own thread may nest). */
    private int pollChannels(int mask) {
        if ((amListener == null && amBarrier == null) || (!conduit.mayDeliver(mask) && !progress.isSet())
            || !pollLock.tryLock()) {
            return 0; // nothing is listening yet (the frames wait for the AM layer), nothing arrived, or a poller runs
        }
        try {
            // with no core frames and no RMA completions to route (smp), frames go straight to the AM layer
            final int delivered = conduit.poll(amBarrier == null && !routesRma ? amListener : dispatch, mask,
                POLL_LIMIT);
            return progress.isSet() && mask == Conduit.ALL_CHANNELS && !inRestrictedContext()
                ? delivered + progress.run() : delivered;
        } catch (IllegalStateException e) {
            throw closedOr(e); // a poll that began before another thread closed the client
        } finally {
            pollLock.unlock();
        }
    }

    /**
     * Collective barrier over all ranks; polls (runs handlers) while waiting.
     *
     * <p>If a handler throws meanwhile, the barrier still completes its phase, so this rank stays in step with the
     * others, and then the first handler exception is rethrown (later ones are suppressed in it): a following
     * {@code barrier()} is the next phase.
     *
     * @throws PeerFailedException if a peer fails meanwhile (the phase cannot complete)
     * @throws GexException if a peer has closed its client: its final barrier paired with this one's earlier phase,
     *                      so this one can never complete
     */
    public void barrier() {
        checkOpen();
        checkNotRestricted("barrier");
        registrations.closeThoseOfClosedArenas();
        if (amBarrier == null) {
            conduit.barrierNotify();
        } else {
            amBarrier.notifyPhase();
        }
        final ConduitIdleStrategy idler = idle.get();
        idler.reset();
        Throwable handlerFailure = null;
        while (!(amBarrier == null ? conduit.barrierTry() : amBarrier.tryComplete())) {
            try {
                checkCanWait("barrier");
            } catch (RuntimeException e) {
                if (handlerFailure != null) {
                    e.addSuppressed(handlerFailure);
                }
                throw e;
            }
            try {
                idler.idle(pollQuietly());
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                if (handlerFailure == null) {
                    handlerFailure = e;
                } else if (handlerFailure != e) {
                    handlerFailure.addSuppressed(e);
                }
            }
        }
        if (handlerFailure instanceof RuntimeException r) {
            throw r;
        }
        if (handlerFailure != null) {
            throw (Error) handlerFailure;
        }
    }

    /**
     * @return true if every NBI operation of the categories in {@code mask} issued by the calling thread has
     *         completed; does not poll
     */
    public boolean nbiTest(int mask) {
        Ec.checkMask(mask);
        final Event[] mine = nbi.get();
        for (int i = 0; i < Ec.COUNT; i++) {
            if ((mask & (1 << i)) != 0 && !mine[i].test()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Polls until every NBI operation of the categories in {@code mask} issued by the calling thread has completed
     * ({@code gex_NBI_Wait}: other threads' operations are theirs to wait for).
     *
     * @throws GexException if one of them failed after it was started
     */
    public void nbiWait(int mask) {
        Ec.checkMask(mask);
        checkNotRestricted("nbiWait");
        final Event[] mine = nbi.get();
        for (int i = 0; i < Ec.COUNT; i++) {
            // most waits find their operations complete (always on smp): only the others take await's path
            if ((mask & (1 << i)) != 0 && !mine[i].completeWithoutFailure()) {
                mine[i].await();
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
        mine[0] = events.take(); // consumed by the successful test or wait of the event endAccessRegion returns
        regionThreads.incrementAndGet();
    }

    /**
     * Ends this thread's access region and returns the event of every NBI operation issued inside it; like the event of
     * a non-blocking call, it is consumed by its successful test or wait.
     */
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
     * The event that tracks a new NBI operation of {@code category} by this thread: its access region's, or its own.
     */
    Event nbiEvent(int category) {
        if (regionThreads.get() != 0) {
            final Event r = region.get()[0];
            if (r != null) {
                return r;
            }
        }
        return nbi.get()[Ec.index(category)];
    }

    /** Polls until {@code event} completes; checks handler context, job health and closed peers. */
    void awaitEvent(Event event) {
        checkNotRestricted("waiting for an event");
        final ConduitIdleStrategy idler = idle.get();
        idler.reset();
        while (event.pending() != 0) {
            checkCanWait("waiting for an event");
            idler.idle(pollQuietly());
        }
    }

    /**
     * One step of a wait for resources (back-pressure). Runs handlers when allowed — only reply handlers inside a
     * handler or an NPAM pair, which is what lets a blocked reply drain the path it waits on — checks that the wait
     * can complete, backs off.
     */
    void progressWhileBlocked() {
        checkCanWait("a send waiting for room");
        final int mask = inRestrictedContext() ? 1 << Conduit.REPLY : Conduit.ALL_CHANNELS;
        idle.get().idle(pollChannels(mask));
    }

    /**
     * A poll on a request's way out, as GASNet-EX's requests poll on entry: runs what arrived, outside handler and
     * NPAM contexts only (elsewhere it does nothing), on the channels of {@code mask}. No health check and no
     * back-off: it never waits.
     */
    void pollBeforeRequest(int mask) {
        if (!inRestrictedContext()) {
            pollChannels(mask);
        }
    }

    boolean closing() {
        return closing || closed;
    }

    boolean tryHoldDelivery() {
        return !closed && pollLock.tryLock();
    }

    void releaseDelivery() {
        pollLock.unlock();
    }

    /** Enters a handler on this thread; @return the context it nests in, for {@link #exitHandler} */
    String enterHandler(String what) {
        final long me = Thread.currentThread().threadId();
        final String previous = handlerThreadId == me ? handlerWhat : null;
        handlerThreadId = me;
        if (handlerWhat != what) {
            handlerWhat = what;
        }
        return previous;
    }

    void exitHandler(String previous) {
        if (previous == null) {
            handlerThreadId = 0; // handlerWhat is read only while an id is set
        } else if (handlerWhat != previous) {
            handlerWhat = previous;
        }
    }

    /**
     * {@link #checkNotRestricted}, and the client is not closed: what every AM and RMA call checks first.
     *
     * @throws IllegalStateException if the client is closed
     */
    void checkOpenAndNotRestricted(String operation) {
        checkNotInHandler(operation);
        if (npam.inUseOrClosed()) {
            checkOpen();
            npam.check(operation);
        }
    }

    /** Closes the client once, whichever of close, exit and abort comes first. @return false if it was closed */
    private synchronized boolean markClosed() {
        if (closed) {
            return false;
        }
        closed = true;
        npam.markClosed();
        return true;
    }

    private boolean inRestrictedContext() {
        return handlerThreadId == Thread.currentThread().threadId() || npam.current() != null;
    }

    private void checkNotInHandler(String operation) {
        if (handlerThreadId == Thread.currentThread().threadId()) {
            throw new HandlerContextException(operation + " is not allowed inside " + handlerWhat);
        }
    }

    /** @throws HandlerContextException if the calling thread is in a handler or NPAM context */
    void checkNotRestricted(String operation) {
        checkNotInHandler(operation);
        npam.check(operation);
    }

    @SuppressWarnings("unchecked")
    synchronized <T> T extension(Class<T> type, Function<Client, T> factory) {
        // not computeIfAbsent: one extension's factory creates another (Rma creates Am)
        Object e = extensions.get(type);
        if (e == null) {
            e = factory.apply(this);
            extensions.put(type, e);
        }
        return (T) e;
    }

    void checkOpen() {
        if (closed) {
            throw closedException(null);
        }
    }

    private IllegalStateException closedException(Throwable cause) {
        return new IllegalStateException("client " + name + " rank " + rank + " is closed", cause);
    }

    /** {@link CoreAccess#closedOr}. */
    RuntimeException closedOr(RuntimeException e) {
        return closed && e instanceof IllegalStateException ? closedException(e) : e;
    }

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
        final boolean wasClosed = !markClosed();
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

    /**
     * Ends the whole job abnormally: every other rank's waits end in {@link PeerFailedException} naming this rank,
     * and this client's resources are released. Never throws.
     */
    public void abort(String reason) {
        if (!markClosed()) {
            return;
        }
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
            closing = true;
            if (!health.failed()) {
                // a peer waiting in a collective this rank never started is answered during the barrier below
                progress.closing(pollLock, () -> checkCanWait("closing"));
                barrier();
            }
        } finally {
            markClosed();
            registrations.closeAll();
            try {
                conduit.close();
                if (config.getBoolean("GEX_STATS", false)) {
                    ClientStats.print(rank, layerStats, conduit);
                }
            } finally {
                if (health.failed()) {
                    bootstrap.abort("rank " + rank + " closing after failure: " + health.failure().getMessage());
                } else {
                    bootstrap.close();
                }
            }
        }
    }

    /**
     * What this rank's conduit counted (for udp: datagrams sent and received, retransmissions, duplicates, drops by
     * cause, window stalls), by name; empty for conduits that count nothing. Also readable after {@link #close()}.
     */
    public java.util.Map<String, Long> conduitCounters() {
        return conduit.counters();
    }

    /**
     * Everything this rank counted, by stable name: the AM layer's ({@code am.sent.short.request},
     * {@code am.received.long.reply}, {@code am.bytes.sent}, {@code am.stalls}...), the RMA layer's
     * ({@code rma.put.blocking}, {@code rma.get.nbi}, {@code rma.bytes.put}...) once they are in use, then the
     * conduit's ({@link #conduitCounters()}). A snapshot; also readable after {@link #close()}. The AM and RMA layers
     * count only with {@code GEX_STATS=1} (as GASNet counts only in a stats build: counting costs a shared-memory
     * round trip 10 to 30 %); otherwise theirs are 0.
     */
    public java.util.Map<String, Long> stats() {
        final java.util.Map<String, Long> all = new java.util.LinkedHashMap<>();
        for (java.util.function.Supplier<java.util.Map<String, Long>> layer : layerStats) {
            all.putAll(layer.get());
        }
        all.putAll(conduit.counters());
        return java.util.Collections.unmodifiableMap(all);
    }

}
