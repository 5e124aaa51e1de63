package org.gexj.am;

import org.gexj.BufferDescriptor;
import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.RegisteredAccess;
import org.gexj.spi.RegisteredRmaTransport;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The rendezvous AM Long, Charm++'s zero-copy entry method: a Long request of at least {@value #SETTING} bytes whose
 * source lies in memory this rank registered ({@code Client.register}) sends only its envelope, naming the
 * registration. The target pulls the payload from there into its segment, answers, and runs the handler; the answer
 * tells the sender that the source may be reused, which completes the send's local completion. The pull is Cross
 * Memory Attach on smp ({@link RegisteredAccess#pull}: one copy by the target's core, at once), an RDMA read with the
 * registration's NIC key on ofi and ibv ({@link AmRendezvousPulls}: the handler runs once it completed).
 *
 * <p>Where: conduits whose peers pull registered memory directly ({@link RegisteredAccess#pullable}) or read it by
 * key ({@link RegisteredRmaTransport}, registrations whose descriptor is keyed); elsewhere (udp), and for sources
 * outside any registration, smaller payloads, replies and sends to this rank, the Long travels as it would without the
 * setting. Off unless {@value #SETTING} is set.
 *
 * <p>Local completion is the answer: {@link Lc#NOW} waits for it (running handlers), an event option completes with
 * it, {@link Lc#GROUP} counts in the thread's NBI AM event. If the target cannot pull (the registration was closed or
 * its arena freed before the pull, which the sender must not do before local completion), no handler runs there, and
 * the completion fails with a {@link GexException} naming the target, the registration and the range.
 *
 * <p>Threads: sends from any thread; {@link #pull}, {@link #answer} and the answer's handler on the polling thread.
 */
final class AmRendezvous {
    private static final CoreAccess CORE = CoreAccess.get();
    static final String SETTING = "GEX_AMLONG_RENDEZVOUS_MIN";
    /** The library's reply that answers a rendezvous Long: (operation, {@link RegisteredAccess} code). */
    static final int ANSWER = 2;

    private final Client client;
    private final AmClaims claims;
    private final RegisteredAccess access;
    /** The NIC that reads peers' registrations by key, or null (smp: Cross Memory Attach). */
    private final RegisteredRmaTransport nic;
    private final int rank;
    private final long min;
    private final long timeoutNs;
    private final OperationSlots ops;
    private final Event[] opEvents;
    private final int[] opPeer;
    private final int[] opHandle;
    private final long[] opOffset;
    private final long[] opLength;
    private final ThreadLocal<Event> localWait;
    /** Per thread: the event an {@link Lc#NOW} send awaits once its envelope is committed, or null. */
    private final ThreadLocal<Event[]> awaitAfterCommit = ThreadLocal.withInitial(() -> new Event[1]);
    /** Each thread's envelope claim, so that {@link AmSender} tells a rendezvous send by its claim. */
    private final ThreadLocal<Claim> envelopes = ThreadLocal.withInitial(Claim::new);
    private final LongAdder sent = new LongAdder();
    private final LongAdder pulled = new LongAdder();
    private final LongAdder refused = new LongAdder();

    private AmRendezvous(Client client, AmClaims claims, RegisteredAccess access, RegisteredRmaTransport nic, long min,
                         long timeoutNs) {
        this.client = client;
        this.claims = claims;
        this.access = access;
        this.nic = nic;
        this.rank = client.rank();
        this.min = min;
        this.timeoutNs = timeoutNs;
        final int count = client.config().getInt("GEX_AMLONG_OPS", 1024, 1, 1 << 20);
        this.ops = new OperationSlots(client, count, timeoutNs, "rendezvous AM Long operations (GEX_AMLONG_OPS)");
        this.opEvents = new Event[count];
        this.opPeer = new int[count];
        this.opHandle = new int[count];
        this.opOffset = new long[count];
        this.opLength = new long[count];
        this.localWait = ThreadLocal.withInitial(() -> CORE.newEvent(client));
    }

    /**
     * @return the rendezvous of {@code client} where its conduit reaches registered memory, else null; it sends
     *         rendezvous Longs from {@value #SETTING} bytes (a byte count of at least 1, or {@code off}, the default),
     *         and pulls peers' whatever the setting here
     * @throws IllegalArgumentException naming a bad setting
     */
    static AmRendezvous open(Client client, Conduit conduit, AmClaims claims, long timeoutNs) {
        final String setting = client.config().get(SETTING, "off");
        final long min = setting.equals("off") ? Long.MAX_VALUE
            : client.config().getLong(SETTING, Long.MAX_VALUE, 1, Long.MAX_VALUE);
        final RegisteredAccess access = conduit.registeredAccess();
        final RegisteredRmaTransport nic = conduit.rma() instanceof RegisteredRmaTransport t ? t : null;
        return access == null ? null : new AmRendezvous(client, claims, access, nic, min, timeoutNs);
    }

    /** The NIC that reads peers' registrations by key, or null where pulls are Cross Memory Attach. */
    RegisteredRmaTransport nic() {
        return nic;
    }

    /** The least payload sent as rendezvous: {@code Long.MAX_VALUE} when off here. */
    long min() {
        return min;
    }

    /**
     * The registration a Long request's payload may be pulled from: the handle, if the payload is large enough, goes to
     * another rank, and lies in one registration peers can pull from; else 0 (it travels as any Long).
     */
    int handleFor(int peer, MemorySegment src, long srcOffset, long nbytes) {
        if (nbytes < min || peer == rank || !src.isNative()) {
            return 0;
        }
        final int handle = CORE.registrationOf(client, src.address() + srcOffset, nbytes);
        return handle != 0 && (access.pullable(handle) || nic != null && keyed(handle)) ? handle : 0;
    }

    private boolean keyed(int handle) {
        final BufferDescriptor d = CORE.registrationDescriptor(client, handle);
        return d != null && d.keyed();
    }

    /**
     * Where {@code address} lies in registration {@code handle}, or -1 if another thread closed it since
     * {@link #handleFor} (the Long then travels as any other).
     */
    long offsetIn(int handle, long address) {
        final MemorySegment registered = CORE.registered(client, handle);
        return registered == null ? -1 : address - registered.address();
    }

    /**
     * Claims and writes the envelope of a rendezvous Long (header and trailer; the caller writes the args and commits),
     * with its operation in flight.
     *
     * @return the envelope's claim, or null if IMMEDIATE and the path was full (nothing sent)
     */
    Claim begin(int peer, int handler, int nargs, int flags, int handle, long offset, long nbytes, long dest, Lc lc) {
        final Event local = lc == Lc.GROUP ? CORE.nbiEvent(client, Ec.AM)
            : lc != null && lc.isEvent() ? CORE.pooledEvent(client) : localWait.get();
        CORE.begin(local, 1);
        final int op;
        try {
            op = ops.acquire();
        } catch (RuntimeException | Error e) {
            CORE.complete(local, 1);
            throw e;
        }
        opEvents[op] = local;
        opPeer[op] = peer;
        opHandle[op] = handle;
        opOffset[op] = offset;
        opLength[op] = nbytes;
        final Claim claim = envelopes.get();
        final int length = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, nargs,
            AmFrameFlyweight.RENDEZVOUS_TRAILER);
        final Claim claimed;
        try {
            claimed = claims.claimEnvelope(claim, peer, Conduit.REQUEST, length, flags);
        } catch (RuntimeException | Error e) {
            release(op);
            throw e;
        }
        if (claimed == null) {
            release(op);
            return null;
        }
        AmFrameFlyweight.encodeHeader(claim.buffer(), claim.offset(), AmFrameFlyweight.CATEGORY_LONG
            | AmFrameFlyweight.TYPE_REQUEST | AmFrameFlyweight.TYPE_RENDEZVOUS, handler, nargs, rank, nbytes, dest);
        // a registration closed since handleFor has no descriptor: the target's read is refused, the send fails
        final BufferDescriptor d = nic == null ? null : CORE.registrationDescriptor(client, handle);
        AmFrameFlyweight.encodeRendezvous(claim.buffer(), claim.offset(), nargs, offset, handle, op,
            d == null ? 0 : d.key(), d == null ? 0 : d.address());
        awaitAfterCommit.get()[0] = lc == null || lc == Lc.NOW ? local : null;
        if (lc != null && lc.isEvent()) {
            CORE.setLastEvent(lc, local);
        }
        sent.increment();
        return claim;
    }

    /** True if {@code claim} is this thread's rendezvous envelope. */
    boolean owns(Claim claim) {
        return claim == envelopes.get();
    }

    /** After the envelope's commit: an {@link Lc#NOW} send waits for the answer, and throws if the pull failed. */
    void afterCommit() {
        final Event[] pending = awaitAfterCommit.get();
        final Event local = pending[0];
        if (local == null) {
            return;
        }
        pending[0] = null;
        AmLongEngine.awaitPending(client, local, timeoutNs, "no answer to a rendezvous AM Long (its source stays in"
            + " use)");
        local.await(); // complete: reports (and clears) a failed pull
    }

    /**
     * The target's pull of a rendezvous Long's payload into {@code local} at the frame's dest, which the sender checked
     * against this segment.
     *
     * @return a {@link RegisteredAccess} code: {@link RegisteredAccess#OK} if the payload is in place
     */
    int pull(AmFrameFlyweight frame, MemorySegment local) {
        final long nbytes = frame.payloadLength();
        final long dest = frame.dest();
        if (local == null || dest < 0 || dest > local.byteSize() - nbytes) {
            refused.increment();
            return RegisteredAccess.OUT_OF_RANGE;
        }
        final int code = access.pull(local, dest, frame.source(), frame.rendezvousHandle(), frame.rendezvousOffset(),
            nbytes);
        count(code);
        return code;
    }

    /** Counts a pull's outcome ({@code am.rendezvous.pulled} or {@code .refused}). */
    void count(int code) {
        (code == RegisteredAccess.OK ? pulled : refused).increment();
    }

    /**
     * Answers a rendezvous Long from inside its handler context, before its handler runs: the source may be reused.
     * The handler may still reply through {@code token}.
     */
    static void answer(AmSender sender, Token token, AmFrameFlyweight frame, int code) {
        final int operation = frame.rendezvousOperation();
        sender.send(token, token.source, AmFrameFlyweight.CATEGORY_SHORT, ANSWER, null, 0, 0, 0, null, 0, 2, operation,
            code, 0, 0);
        token.replied = false;
    }

    /** The answer's handler, at the sender: completes the operation, with a failure if the target could not pull. */
    void onAnswer(Token token, Args args) {
        final int op = args.get(0);
        final int code = args.get(1);
        if (op < 0 || op >= opEvents.length || opEvents[op] == null || opPeer[op] != token.source) {
            throw new GexException("rank " + rank + ": rank " + token.source + " answered rendezvous AM Long operation "
                + op + ", which is not in flight to it");
        }
        if (code == RegisteredAccess.OK) {
            release(op);
            return;
        }
        final Event local = opEvents[op];
        final GexException failure = new GexException("rank " + opPeer[op] + " could not pull the AM Long payload ["
            + opOffset[op] + ", " + (opOffset[op] + opLength[op]) + ") of rank " + rank + "'s registration 0x"
            + Integer.toHexString(opHandle[op]) + ": " + describe(code) + "; its handler did not run");
        opEvents[op] = null;
        ops.release(op);
        CORE.fail(local, 1, failure);
    }

    private void release(int op) {
        final Event local = opEvents[op];
        opEvents[op] = null;
        ops.release(op);
        CORE.complete(local, 1);
    }

    static String describe(int code) {
        return switch (code) {
            case RegisteredAccess.NOT_REGISTERED -> "no open registration there (closed before the pull?)";
            case RegisteredAccess.OUT_OF_RANGE -> "the range lies outside the registration or the target's segment";
            case RegisteredAccess.FAULT -> "its memory could not be read (its arena or registration closed?)";
            case RegisteredAccess.ELSEWHERE -> "the target cannot reach it directly";
            default -> "code " + code;
        };
    }

    /** {@code am.rendezvous.sent}, {@code .pulled}, {@code .refused}. */
    void counters(Map<String, Long> into) {
        into.put("am.rendezvous.sent", sent.sum());
        into.put("am.rendezvous.pulled", pulled.sum());
        into.put("am.rendezvous.refused", refused.sum());
    }
}
