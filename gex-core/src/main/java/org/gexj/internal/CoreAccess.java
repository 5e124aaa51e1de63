package org.gexj.internal;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.JobHealth;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * What the AM and RMA layers need of the core that users must not call: handler and NPAM context, progress while
 * blocked, events' counters, the conduit. This package is exported only to GEX/J's own modules, so the public classes
 * ({@link Client}, {@link Event}, {@link Lc}) keep these operations package-private and hand them out here (the JDK's
 * "shared secrets" pattern).
 *
 * <p>Get it once into a static final field: {@code private static final CoreAccess CORE = CoreAccess.get();}
 */
public abstract class CoreAccess {
    private static volatile CoreAccess instance;

    /** The implementation, installed by {@link Client}'s class initialisation. */
    public static CoreAccess get() {
        CoreAccess a = instance;
        if (a == null) {
            try {
                Class.forName(Client.class.getName(), true, CoreAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            a = instance;
        }
        return a;
    }

    /** Called once, by {@link Client}'s static initialiser; a second call is refused. */
    public static synchronized void install(CoreAccess access) {
        if (instance != null) {
            throw new IllegalStateException("CoreAccess is installed already");
        }
        instance = access;
    }

    // ------------------------------------------------------------------------------------------ client

    /** The client's conduit. */
    public abstract Conduit conduit(Client client);

    /**
     * Makes every poll of {@code client} that may send requests (not inside a handler or NPAM pair) also run
     * {@code progress}, for good, after what other layers set.
     */
    public abstract void setProgress(Client client, ClientProgress progress);

    public abstract JobHealth health(Client client);

    /** One instance of an extension (Am, Rma) per client, created by {@code factory} on first use. */
    public abstract <T> T extension(Client client, Class<T> type, Function<Client, T> factory);

    /**
     * The memory this rank registered under {@code handle} ({@code Client.register}), if that registration is open and
     * its arena alive, else null. No lock, no allocation: what a handler asks before it moves a peer's data.
     */
    public abstract MemorySegment registered(Client client, int handle);

    /**
     * The handle of an open registration of this rank that holds {@code [address, address + length)}, or 0. No lock, no
     * allocation.
     */
    public abstract int registrationOf(Client client, long address, long length);

    /** The descriptor of this rank's open registration {@code handle} (its NIC key, if keyed), else null. */
    public abstract org.gexj.BufferDescriptor registrationDescriptor(Client client, int handle);

    /** The AM layer installs the listener of inbound frames and remote writes. */
    public abstract void setListener(Client client, ConduitListener listener);

    /** A layer's counters, by stable name ({@code am.*}, {@code rma.*}), for {@code Client.stats()} and GEX_STATS. */
    public abstract void addStats(Client client, java.util.function.Supplier<java.util.Map<String, Long>> counters);

    /** How many layers can own RMA operations: the top byte of an operation id names its owner. */
    public static final int OWNERS = 6;
    public static final int OWNER_SHIFT = 56;
    /** RMA operations of the RMA layer. */
    public static final int OWNER_RMA = 1;
    /** RMA operations of the AM layer (Long payloads). */
    public static final int OWNER_AM = 2;
    /** RMA operations of puts and gets with completion (their data by RDMA). */
    public static final int OWNER_PWC = 3;
    /** Remote atomics the conduit's NIC performs ({@code RmaTransport#atomic}). */
    public static final int OWNER_AD = 4;
    /** RDMA reads of rendezvous AM Long payloads, which the target starts (the AM layer). */
    public static final int OWNER_AM_PULL = 5;

    /** RMA completions of operations whose id has {@code owner} in its top byte go to {@code sink}. */
    public abstract void setRmaSink(Client client, int owner, ConduitListener sink);

    /** The attached segments of every rank: descriptors with their remote keys. */
    public abstract AttachedSegments segments(Client client);

    /**
     * The polling thread starts running a handler, where polling, waiting and barriers are forbidden. Handlers nest
     * only through a reply poll inside a handler.
     *
     * @return the previous handler context, to pass to {@link #exitHandler}
     */
    public abstract String enterHandler(Client client, String what);

    public abstract void exitHandler(Client client, String previous);

    /** This thread is between an NPAM prepare and its commit or cancel ({@code what} non-null), or not. */
    public abstract void setNpam(Client client, String what);

    /** The NPAM context of this thread, or null. */
    public abstract String npamContext(Client client);

    /** @throws org.gexj.HandlerContextException if this thread is in a handler or between NPAM prepare and commit */
    public abstract void checkNotRestricted(Client client, String operation);

    /**
     * As {@link #checkNotRestricted}, and the client is not closed; as cheap (one volatile read in the common case).
     *
     * @throws IllegalStateException if the client is closed
     */
    public abstract void checkOpenAndNotRestricted(Client client, String operation);

    /** @throws IllegalStateException if the client is closed */
    public abstract void checkOpen(Client client);

    /**
     * What a call that the conduit refused with {@code e} throws: a thread that checked the client before another
     * closed it meets the closed conduit, whose exception names no client; once the client is closed it is replaced
     * by the client's {@link IllegalStateException} (with {@code e} as its cause). Any other {@code e} is returned.
     */
    public abstract RuntimeException closedOr(Client client, RuntimeException e);

    /**
     * One step of a wait for resources (back-pressure): runs handlers when allowed (only replies inside a handler or
     * NPAM pair), checks job health, backs off.
     */
    public abstract void progressWhileBlocked(Client client);

    /**
     * Runs what arrived on the channels of {@code channelMask} ({@link org.gexj.spi.Conduit#ALL_CHANNELS}, or a
     * channel's bit), unless the calling thread is in a handler or NPAM context; never waits. For sends that poll on
     * their way out.
     */
    public abstract void pollBeforeRequest(Client client, int channelMask);

    /**
     * Takes the client's delivery lock (handlers run only on its holder; the holder's thread may take it again) if no
     * other thread holds it, for a frame delivered at once to this rank. @return whether it was taken
     */
    public abstract boolean tryHoldDelivery(Client client);

    /** Gives back what {@link #tryHoldDelivery} took. */
    public abstract void releaseDelivery(Client client);

    /** Whether the client's {@code close()} has begun (its final barrier may be running) or ended. */
    public abstract boolean closing(Client client);

    /** Resets this thread's back-off before a new wait. */
    public abstract void resetBackoff(Client client);

    /**
     * The event that tracks a new NBI operation of {@code category} by this thread: its access region's, or its own.
     */
    public abstract Event nbiEvent(Client client, int category);

    // ------------------------------------------------------------------------------------------ events

    /** A new event of {@code client}, reusable: it is never consumed (blocking calls' per-thread events). */
    public abstract Event newEvent(Client client);

    /**
     * An event for one non-blocking operation, taken from the client's pool without allocating; it goes back to the
     * pool when a successful {@code test()} or {@code await()} consumes it, as GASNet-EX's events are.
     */
    public abstract Event pooledEvent(Client client);

    /** {@code n} more sub-operations are pending on {@code event}. */
    public abstract void begin(Event event, int n);

    /**
     * {@link #begin} for a {@link #pooledEvent} no other thread can see yet: a plain store, where {@code begin}'s
     * atomic add is a full fence.
     */
    public abstract void beginUnseen(Event event, int n);

    /** {@code n} sub-operations of {@code event} finished. */
    public abstract void complete(Event event, int n);

    /**
     * The last pending sub-operation of {@code event} finished, failed where {@code failure} is not null, on the only
     * thread that begins or completes {@code event} until it is consumed: a release store instead of an atomic add.
     */
    public abstract void completeSole(Event event, Throwable failure);

    /** {@code n} sub-operations of {@code event} finished, and the operation failed with {@code failure}. */
    public abstract void fail(Event event, int n, Throwable failure);

    /** Records the local-completion event of a call made with an {@link Lc#event()} option. */
    public abstract void setLastEvent(Lc lc, Event event);
}
