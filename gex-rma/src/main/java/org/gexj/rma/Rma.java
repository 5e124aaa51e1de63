package org.gexj.rma;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.Lc;
import org.gexj.Segment;
import org.gexj.am.Am;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One-sided put and get ({@code gex_RMA_*}): blocking, non-blocking with an {@link Event} (NB), and implicit
 * (NBI, completed by {@link Client#nbiWait} with {@link Ec#PUT} / {@link Ec#GET}, or collected by an access region).
 * The remote address is an offset into the peer's segment, checked at the initiator: a bad rank, offset or length
 * throws {@link IllegalArgumentException} before anything is sent. A transfer of 0 bytes is a no-op (its local buffer
 * may be null), as in AM and GASNet-EX; a null buffer with bytes to move throws {@link NullPointerException} naming the
 * parameter ({@code src}, {@code dst}), as does a null {@code lc}. Every call after the client is closed throws
 * {@link IllegalStateException}.
 *
 * <p>Local buffers: a put's source may be any memory segment. A get's destination must be writable and accessible
 * from every thread (a global, automatic or shared arena's, or a heap segment): the data may be stored by whichever
 * thread polls when it arrives, so a read-only or thread-confined destination is rejected at the call.
 *
 * <p>Completion of a put or get means complete at the target. A put's source is reusable when the call returns
 * with {@link Lc#NOW}; with {@link Lc#DEFER}, {@link Lc#GROUP} or an event, when that completes (here the payload
 * is always copied before return, so local completion is immediate). The {@link Event} of a non-blocking call is
 * consumed by its successful test or wait (see {@link Event}).
 *
 * <p>Progress: as in GASNet-EX, an initiating call may poll (RMA over AM sends requests, which wait for room by
 * polling), so handlers may run inside it; {@link Event#test()} and {@link Client#nbiTest} never poll.
 *
 * <p>A handler exception thrown while a blocking call waits propagates from it; the operation stays in flight and
 * completes during later polls.
 *
 * <p>Registered memory ({@link Client#register}) is reached by its {@link BufferDescriptor} and an offset into it,
 * in the same blocking, NB and NBI forms, on every conduit: the initiator checks the range against the descriptor, and
 * the owner checks it again, with the registration's handle, and refuses a registration closed since; a refused
 * operation completes with a {@link org.gexj.GexException} naming the rank and the range, having written nothing.
 * Where the conduit registered the memory with its NIC for peers (ofi; the descriptor is {@link BufferDescriptor#keyed
 * keyed}), the data moves by RDMA and the owner's NIC refuses instead (a put's source is then read after the call, as
 * for the segment); on smp it moves with Cross Memory Attach; elsewhere over active messages.
 *
 * <p>The engine is chosen from the conduit's capabilities: cross-mapped segments (smp) give memory copies; a conduit
 * with native RMA moves the data itself (then a put's source may be read after the call, and {@link Lc#NOW} waits for
 * it); other conduits use the RMA-over-AM reference. {@code GEX_RMA_OVER_AM=1} forces the reference (for tests and
 * comparison). {@code Gex.init} creates it on every rank, RMA over AM's handlers included, so a rank may put and get
 * as soon as init returns, to peers that never call {@link #of}.
 */
public final class Rma {
    private static final CoreAccess CORE = CoreAccess.get();
    /** Never started: a probe for segments confined to one thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    private final Client client;
    private final RmaEngine engine;
    /** Reaches registered memory ({@link BufferDescriptor}) on every conduit: RMA over AM. */
    private final AmRmaEngine registered;
    /** Reaches keyed registrations ({@link BufferDescriptor#keyed}) by the conduit's RDMA, or null. */
    private final NativeRmaEngine keyed;
    private final ThreadLocal<Event> blocking;
    /** Each thread's event for a put with {@link Lc#NOW} whose source the conduit reads after the call. */
    private final ThreadLocal<Event> localWait;
    /** Puts read their source after the call returns (native RMA on such a conduit). */
    private final boolean deferredLocalCompletion;
    /**
     * Every operation is complete when the engine returns (cross-mapped memory): no event is looked up or waited on,
     * which is most of a small put's cost there (a thread-local look-up and the event's checks).
     */
    private final boolean synchronous;
    private final ThreadLocal<MemorySegment> valueBuffer;
    private final RmaStats stats;
    /** Remote atomics over AM: its handlers exist on every rank, whichever path a rank's domains take. */
    private final AmAtomics amAtomics;
    /** Atomics are the CPU's on the peers' cross-mapped segments (smp), unless forced over AM. */
    private final boolean atomicsDirect;
    /** Remote atomics by the conduit's NIC, where it has native RMA and atomics are not forced over AM; else null. */
    private final NicAtomics nicAtomics;

    private Rma(Client client) {
        this.client = client;
        this.stats = new RmaStats(client.config().getBoolean("GEX_STATS", false));
        final Am am = Am.of(client);
        final boolean overAm = client.config().getBoolean("GEX_RMA_OVER_AM", false);
        final var capabilities = client.capabilities();
        if (capabilities.crossMapped() && !overAm) {
            this.engine = new CrossMappedRmaEngine(CORE.conduit(client), client.size());
        } else if (capabilities.nativeRma() && !overAm) {
            this.engine = new NativeRmaEngine(client, CORE.conduit(client).rma());
        } else {
            this.engine = new AmRmaEngine(am);
        }
        this.registered = engine instanceof AmRmaEngine overAmEngine ? overAmEngine : new AmRmaEngine(am);
        this.keyed = engine instanceof NativeRmaEngine nativeEngine && nativeEngine.reachesByKey() ? nativeEngine
            : null;
        this.blocking = ThreadLocal.withInitial(() -> CORE.newEvent(client));
        this.localWait = ThreadLocal.withInitial(() -> CORE.newEvent(client));
        this.synchronous = engine.synchronous();
        this.deferredLocalCompletion = client.capabilities().deferredLocalCompletion() && !synchronous
            && !(engine instanceof AmRmaEngine);
        this.valueBuffer = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(8, 8));
        this.amAtomics = new AmAtomics(am);
        final boolean atomicsOverAm = overAm || client.config().getBoolean("GEX_AD_OVER_AM", false);
        this.atomicsDirect = capabilities.crossMapped() && !atomicsOverAm;
        this.nicAtomics = engine instanceof NativeRmaEngine && !atomicsOverAm
            ? new NicAtomics(client, CORE.conduit(client).rma()) : null;
        CORE.addStats(client, stats::snapshot);
    }

    /** The client's RMA layer, which {@code Gex.init} created on every rank. */
    public static Rma of(Client client) {
        return CORE.extension(client, Rma.class, Rma::new);
    }

    /** True when every segment put and get is a memory copy, complete at return (smp's cross-mapped segments). */
    boolean copiesDirectly() {
        return synchronous;
    }

    /** True when RMA goes over active messages (no cross-mapping or native RMA, or forced). */
    public boolean overActiveMessages() {
        return engine instanceof AmRmaEngine;
    }

    // ---------------------------------------------------------------------------------------------- put

    /** Blocking put: returns when the data is at the target. */
    public void put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes) {
        checkPut(peer, remoteOffset, src, srcOffset, nbytes);
        stats.put(RmaStats.BLOCKING, nbytes);
        if (synchronous) {
            engine.put(peer, remoteOffset, src, srcOffset, nbytes, null, null);
            return;
        }
        final Event e = blocking.get();
        engine.put(peer, remoteOffset, src, srcOffset, nbytes, e, null);
        e.await();
    }

    /**
     * Non-blocking put.
     *
     * @param lc {@link Lc#NOW}, {@link Lc#DEFER} or {@link Lc#event()}
     * @return the remote-completion event ({@link Event#DONE} when already complete)
     */
    public Event putNb(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        checkPut(peer, remoteOffset, src, srcOffset, nbytes);
        checkLc(lc, false);
        stats.put(RmaStats.NB, nbytes);
        final Event e = synchronous ? Event.DONE : CORE.pooledEvent(client);
        final Event local = localEvent(lc);
        engine.put(peer, remoteOffset, src, srcOffset, nbytes, e, local);
        localCompletion(lc, local);
        return e;
    }

    /**
     * Implicit-handle put, completed by {@code nbiWait(Ec.PUT)} or the enclosing access region.
     *
     * @param lc {@link Lc#NOW}, {@link Lc#DEFER} or {@link Lc#GROUP}
     */
    public void putNbi(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        checkPut(peer, remoteOffset, src, srcOffset, nbytes);
        checkLc(lc, true);
        stats.put(RmaStats.NBI, nbytes);
        final Event local = localEvent(lc);
        final Event nbi = synchronous ? null : CORE.nbiEvent(client, Ec.PUT);
        engine.put(peer, remoteOffset, src, srcOffset, nbytes, nbi, local);
        localCompletion(lc, local);
    }

    // ---------------------------------------------------------------------------------------------- get

    /** Blocking get into {@code dst} at {@code dstOffset}. */
    public void get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes) {
        checkGet(dst, dstOffset, peer, remoteOffset, nbytes);
        stats.get(RmaStats.BLOCKING, nbytes);
        if (synchronous) {
            engine.get(dst, dstOffset, peer, remoteOffset, nbytes, null);
            return;
        }
        final Event e = blocking.get();
        engine.get(dst, dstOffset, peer, remoteOffset, nbytes, e);
        e.await();
    }

    /** Non-blocking get; the data is in {@code dst} when the event completes. */
    public Event getNb(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes) {
        checkGet(dst, dstOffset, peer, remoteOffset, nbytes);
        stats.get(RmaStats.NB, nbytes);
        final Event e = synchronous ? Event.DONE : CORE.pooledEvent(client);
        engine.get(dst, dstOffset, peer, remoteOffset, nbytes, e);
        return e;
    }

    /** Implicit-handle get, completed by {@code nbiWait(Ec.GET)} or the enclosing access region. */
    public void getNbi(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes) {
        checkGet(dst, dstOffset, peer, remoteOffset, nbytes);
        stats.get(RmaStats.NBI, nbytes);
        engine.get(dst, dstOffset, peer, remoteOffset, nbytes, synchronous ? null : CORE.nbiEvent(client, Ec.GET));
    }

    // ---------------------------------------------------------------------------------------------- registered

    /** Blocking put into the registration {@code dst} describes, at {@code dstOffset}; returns when it is there. */
    public void put(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes) {
        checkPut(dst, dstOffset, src, srcOffset, nbytes);
        stats.put(RmaStats.BLOCKING, nbytes);
        final Event e = blocking.get();
        if (dst.keyed() && keyed != null) {
            keyed.putRegistered(dst, dstOffset, src, srcOffset, nbytes, e, null);
        } else {
            registered.putRegistered(dst.rank(), dst.handle(), dstOffset, src, srcOffset, nbytes, e);
        }
        e.await();
    }

    /**
     * Non-blocking put into the registration {@code dst} describes.
     *
     * @param lc {@link Lc#NOW}, {@link Lc#DEFER} or {@link Lc#event()}
     * @return the remote-completion event
     */
    public Event putNb(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        checkPut(dst, dstOffset, src, srcOffset, nbytes);
        checkLc(lc, false);
        stats.put(RmaStats.NB, nbytes);
        final Event e = CORE.pooledEvent(client);
        if (dst.keyed() && keyed != null) {
            final Event local = localEvent(lc);
            keyed.putRegistered(dst, dstOffset, src, srcOffset, nbytes, e, local);
            localCompletion(lc, local);
        } else {
            registered.putRegistered(dst.rank(), dst.handle(), dstOffset, src, srcOffset, nbytes, e);
            localCompletion(lc, null);
        }
        return e;
    }

    /**
     * Implicit-handle put into the registration {@code dst} describes.
     *
     * @param lc {@link Lc#NOW}, {@link Lc#DEFER} or {@link Lc#GROUP}
     */
    public void putNbi(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes, Lc lc) {
        checkPut(dst, dstOffset, src, srcOffset, nbytes);
        checkLc(lc, true);
        stats.put(RmaStats.NBI, nbytes);
        if (dst.keyed() && keyed != null) {
            final Event local = localEvent(lc);
            keyed.putRegistered(dst, dstOffset, src, srcOffset, nbytes, CORE.nbiEvent(client, Ec.PUT), local);
            localCompletion(lc, local);
        } else {
            registered.putRegistered(dst.rank(), dst.handle(), dstOffset, src, srcOffset, nbytes,
                CORE.nbiEvent(client, Ec.PUT));
            localCompletion(lc, null);
        }
    }

    /** Blocking get from the registration {@code src} describes, at {@code srcOffset}, into {@code dst}. */
    public void get(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes) {
        checkGet(dst, dstOffset, src, srcOffset, nbytes);
        stats.get(RmaStats.BLOCKING, nbytes);
        final Event e = blocking.get();
        getRegistered(dst, dstOffset, src, srcOffset, nbytes, e);
        e.await();
    }

    /** Non-blocking get from the registration {@code src} describes; the data is in {@code dst} at the event. */
    public Event getNb(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes) {
        checkGet(dst, dstOffset, src, srcOffset, nbytes);
        stats.get(RmaStats.NB, nbytes);
        final Event e = CORE.pooledEvent(client);
        getRegistered(dst, dstOffset, src, srcOffset, nbytes, e);
        return e;
    }

    /** Implicit-handle get from the registration {@code src} describes. */
    public void getNbi(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes) {
        checkGet(dst, dstOffset, src, srcOffset, nbytes);
        stats.get(RmaStats.NBI, nbytes);
        getRegistered(dst, dstOffset, src, srcOffset, nbytes, CORE.nbiEvent(client, Ec.GET));
    }

    private void getRegistered(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes,
                               Event e) {
        if (src.keyed() && keyed != null) {
            keyed.getRegistered(dst, dstOffset, src, srcOffset, nbytes, e);
        } else {
            registered.getRegistered(dst, dstOffset, src.rank(), src.handle(), srcOffset, nbytes, e);
        }
    }

    // ---------------------------------------------------------------------------------------------- values

    /** Blocking put of the low {@code nbytes} (1..8) bytes of {@code value}, in native byte order. */
    public void putVal(int peer, long remoteOffset, long value, int nbytes) {
        put(peer, remoteOffset, value(value, nbytes), 0, nbytes);
    }

    /** Implicit-handle value put; the value is copied before return. */
    public void putValNbi(int peer, long remoteOffset, long value, int nbytes) {
        putNbi(peer, remoteOffset, value(value, nbytes), 0, nbytes, Lc.NOW);
    }

    /** Non-blocking value put; the value is copied before return. */
    public Event putValNb(int peer, long remoteOffset, long value, int nbytes) {
        return putNb(peer, remoteOffset, value(value, nbytes), 0, nbytes, Lc.NOW);
    }

    /** Blocking get of {@code nbytes} (1..8) bytes, zero-extended into a long. */
    public long getVal(int peer, long remoteOffset, int nbytes) {
        checkValueSize(nbytes);
        final MemorySegment v = valueBuffer.get();
        v.set(ValueLayout.JAVA_LONG, 0, 0L);
        get(v, 0, peer, remoteOffset, nbytes);
        return v.get(ValueLayout.JAVA_LONG, 0);
    }

    private MemorySegment value(long value, int nbytes) {
        checkValueSize(nbytes);
        final MemorySegment v = valueBuffer.get();
        v.set(ValueLayout.JAVA_LONG, 0, value);
        return v;
    }

    private static void checkValueSize(int nbytes) {
        if (nbytes < 1 || nbytes > 8) {
            throw new IllegalArgumentException("value size " + nbytes + " outside [1, 8]");
        }
    }

    // ---------------------------------------------------------------------------------------------- VIS pieces

    /** One contiguous chunk of a {@link Vis} put, checked by it, added to {@code completion} (null if synchronous). */
    void putPiece(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, Event completion) {
        engine.put(peer, remoteOffset, src, srcOffset, nbytes, completion, null);
    }

    /** Every chunk of a {@link Vis} plan, checked by it, where {@link #copiesDirectly()}. */
    void copyPieces(boolean put, int peer, VisPlan plan, MemorySegment local) {
        ((CrossMappedRmaEngine) engine).copyPieces(put, peer, plan, local);
    }

    /**
     * A {@link Vis} strided transfer without a chunk list where {@link #copiesDirectly()} and {@link VisDirect} proves
     * its shape in range and disjoint.
     *
     * @return false, with nothing moved, where the general path must check and move it
     */
    boolean copyStrided(boolean put, int peer, MemorySegment local, long remoteBase, long[] remoteStrides,
                        long localBase, long[] localStrides, long elemSize, long[] count, int levels) {
        return VisDirect.strided((CrossMappedRmaEngine) engine, put, peer, segment().size(peer), local, remoteBase,
            remoteStrides, localBase, localStrides, elemSize, count, levels);
    }

    /**
     * A {@link Vis} transfer of one piece on each side, {@code n} and {@code otherN} bytes, where
     * {@link #copiesDirectly}: one copy, as a put or get, if the lengths agree and both ranges are in bounds. Most of
     * a one-piece vector put's time went to the checks and calls of the paths for many pieces (8 bytes: 10 ns a VIS
     * put, about 2 a contiguous one).
     *
     * @return false, having moved nothing, where the general path must check it and name what is wrong
     */
    boolean copyOne(boolean put, int peer, MemorySegment local, long remoteOffset, long localOffset, long n,
                    long otherN) {
        if (local == null || n != otherN || n < 0 || remoteOffset < 0 || remoteOffset > segment().size(peer) - n
            || localOffset < 0 || localOffset > local.byteSize() - n || !put && local.isReadOnly()) {
            return false;
        }
        if (put) {
            engine.put(peer, remoteOffset, local, localOffset, n, null, null);
        } else {
            engine.get(local, localOffset, peer, remoteOffset, n, null);
        }
        return true;
    }

    /** A {@link Vis} vector or indexed transfer whose lists pair up, as {@link #copyStrided}. */
    boolean copyPaired(boolean put, int peer, MemorySegment local, int count, long[] remoteOffsets,
                       long[] localOffsets, long[] lengths, long[] sameLengths, long length) {
        return VisDirect.paired((CrossMappedRmaEngine) engine, put, peer, segment().size(peer), local, count,
            remoteOffsets, localOffsets, lengths, sameLengths, length);
    }

    /** One contiguous chunk of a {@link Vis} get, as {@link #putPiece}. */
    void getPiece(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, Event completion) {
        engine.get(dst, dstOffset, peer, remoteOffset, nbytes, completion);
    }

    // ---------------------------------------------------------------------------------------------- atomics

    AmAtomics amAtomics() {
        return amAtomics;
    }

    /** True when every rank's segment is mapped here for {@link AtomicDomain}'s CPU atomics. */
    boolean atomicsDirect() {
        return atomicsDirect;
    }

    /** The remote atomics of the conduit's NIC, or null where atomics go over AM or are the CPU's. */
    NicAtomics nicAtomics() {
        return nicAtomics;
    }

    /** The memory an atomic on {@code rank}'s segment applies to here: a cross-mapped peer's, or this rank's. */
    MemorySegment atomicTarget(int rank) {
        return atomicsDirect ? CORE.conduit(client).peerSegment(rank) : segment().memory();
    }

    /** @throws IllegalArgumentException if {@code rank}'s segment does not hold {@code bytes} at {@code offset} */
    void checkAtomicTarget(int rank, long offset, int bytes) {
        segment().checkRemote(rank, offset, bytes);
    }

    // ---------------------------------------------------------------------------------------------- checks

    /**
     * The client's segment once attached (never detached), read plainly: the client's own field is volatile, and a
     * volatile read on every call kept all of a put's checks inside the caller's loop.
     */
    private Segment attached;

    /** @throws IllegalStateException if no segment is attached yet */
    private Segment segment() {
        Segment s = attached;
        if (s == null) {
            s = client.segment();
            attached = s;
        }
        return s;
    }

    private void checkPut(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes) {
        CORE.checkOpenAndNotRestricted(client, "an RMA put");
        final Segment segment = segment();
        segment.checkRemote(peer, remoteOffset, nbytes);
        checkLocal("src", "source", src, srcOffset, nbytes);
    }

    private void checkGet(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes) {
        CORE.checkOpenAndNotRestricted(client, "an RMA get");
        final Segment segment = segment();
        segment.checkRemote(peer, remoteOffset, nbytes);
        checkDestination(dst, dstOffset, nbytes);
    }

    private void checkPut(BufferDescriptor dst, long dstOffset, MemorySegment src, long srcOffset, long nbytes) {
        CORE.checkOpenAndNotRestricted(client, "an RMA put");
        checkDescriptor(client, "dst", dst, dstOffset, nbytes);
        checkLocal("src", "source", src, srcOffset, nbytes);
    }

    private void checkGet(MemorySegment dst, long dstOffset, BufferDescriptor src, long srcOffset, long nbytes) {
        CORE.checkOpenAndNotRestricted(client, "an RMA get");
        checkDescriptor(client, "src", src, srcOffset, nbytes);
        checkDestination(dst, dstOffset, nbytes);
    }

    /** The descriptor names a rank of this job, and the range lies in its registration (as the descriptor says). */
    static void checkDescriptor(Client client, String parameter, BufferDescriptor descriptor, long offset,
                                long nbytes) {
        if (descriptor == null) {
            throw new NullPointerException(parameter + " (a BufferDescriptor) is null");
        }
        if (descriptor.rank() >= client.size()) {
            throw new IllegalArgumentException("descriptor rank " + descriptor.rank() + " outside [0, "
                + client.size() + ")");
        }
        descriptor.checkRange(offset, nbytes);
    }

    /** A get's destination: in range, writable, and reachable from whichever thread polls. */
    static void checkDestination(MemorySegment dst, long dstOffset, long nbytes) {
        checkLocal("dst", "destination", dst, dstOffset, nbytes);
        if (nbytes > 0) {
            if (dst.isReadOnly()) {
                throw new IllegalArgumentException("get destination is a read-only segment");
            }
            if (!dst.isAccessibleBy(ANOTHER_THREAD)) {
                throw new IllegalArgumentException("get destination is confined to one thread (Arena.ofConfined()); the"
                    + " data may be stored by another polling thread: use a shared, global or automatic arena");
            }
        }
    }

    /** A 0-byte transfer needs no buffer: it is a no-op once the remote range is checked. */
    static void checkLocal(String parameter, String what, MemorySegment buffer, long offset, long nbytes) {
        if (buffer == null) {
            if (nbytes != 0) {
                throw new NullPointerException(parameter + " is null with " + nbytes + " bytes to transfer");
            }
            return;
        }
        if (offset < 0 || nbytes < 0 || offset > buffer.byteSize() - nbytes) {
            throw new IllegalArgumentException("local " + what + " range [" + offset + ", " + (offset + nbytes)
                + ") outside the buffer [0, " + buffer.byteSize() + ")");
        }
    }

    private static void checkLc(Lc lc, boolean nbi) {
        if (lc == null) {
            throw new NullPointerException("lc is null; use Lc.NOW, Lc.DEFER, Lc.GROUP (putNbi) or Lc.event() (putNb)");
        }
        if (nbi ? lc.isEvent() : lc == Lc.GROUP) {
            throw new IllegalArgumentException(lc + " is not allowed for a put"
                + (nbi ? "Nbi (use NOW, DEFER or GROUP)" : "Nb (use NOW, DEFER or Lc.event())"));
        }
    }

    /**
     * The event that tracks a put's local completion, where it comes later than the call and the option asks for it:
     * the thread's own for {@link Lc#NOW} (waited on before returning), a pooled one for {@link Lc#event()}. DEFER and
     * GROUP need none: the put's remote completion implies its local one.
     */
    private Event localEvent(Lc lc) {
        if (!deferredLocalCompletion) {
            return null;
        }
        if (lc == Lc.NOW) {
            return localWait.get();
        }
        return lc.isEvent() ? CORE.pooledEvent(client) : null;
    }

    /** NOW returns once the source is reusable; an event option records its event (done, when the copy was made). */
    private void localCompletion(Lc lc, Event local) {
        if (local == null) {
            if (lc.isEvent()) {
                CORE.setLastEvent(lc, Event.DONE);
            }
        } else if (lc.isEvent()) {
            CORE.setLastEvent(lc, local);
        } else {
            local.await(); // Lc.NOW: the thread's reusable event
        }
    }
}
