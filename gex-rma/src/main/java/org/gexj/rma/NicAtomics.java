package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.GexException;
import org.gexj.GexTimeoutException;
import org.gexj.am.Am;
import org.gexj.internal.CoreAccess;
import org.gexj.spi.AtomicCodes;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * Remote atomics the conduit's NIC performs ({@link RmaTransport#atomic}: libfabric's {@code fi_fetch_atomic} and
 * {@code fi_compare_atomic}, verbs' 64-bit fetch-and-add and compare-and-swap), for the domains whose type and
 * operations the NIC takes ({@link #takes}). GASNet's operations map onto libfabric's: SET and SWAP are WRITE, GET is
 * READ, (F)CAS is CSWAP, (F)ADD, (F)SUB, (F)INC and (F)DEC are SUM (of the negated operand, of 1, of -1), (F)MULT is
 * PROD, and the rest by name. Every operation takes the fetching form, its previous value landing in this engine's
 * own native memory: a fetch's completion means the target performed it, which a plain {@code fi_atomic}'s need not
 * (by the provider's default completion semantics it may complete once the request left).
 *
 * <p>Operations in flight live in {@code GEX_AD_NIC_OPS} slots whose index is the conduit operation's id, so nothing
 * is allocated per operation. When the conduit has no room, the caller polls until it does, for at most
 * {@code GEX_BACKPRESSURE_TIMEOUT} (or returns at once with {@code IMMEDIATE}).
 *
 * <p>Threads: {@link #start} from any thread; completions on the polling thread.
 */
final class NicAtomics implements AtomicEngine, ConduitListener {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final long OWNER = (long) CoreAccess.OWNER_AD << CoreAccess.OWNER_SHIFT;
    private static final AtomicOp[] OPS = AtomicOp.values();

    private final Client client;
    private final RmaTransport transport;
    private final long timeoutNs;
    private final AtomicsInFlight inFlight;
    /** Each slot's previous value, where the conduit stores it before the completion. */
    private final MemorySegment fetched;

    NicAtomics(Client client, RmaTransport transport) {
        this.client = client;
        this.transport = transport;
        this.timeoutNs = client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L;
        final int count = client.config().getInt("GEX_AD_NIC_OPS", 256, 1, 1 << 20);
        this.inFlight = new AtomicsInFlight(client, count, timeoutNs, "NIC atomic operation slots (GEX_AD_NIC_OPS)");
        this.fetched = Arena.ofAuto().allocate(8L * count, 8);
        CORE.setRmaSink(client, CoreAccess.OWNER_AD, this);
    }

    /**
     * Whether a domain of {@code type} and {@code ops} created with {@code flags} takes the NIC's atomics: the NIC must
     * perform every operation of the set, and either the domain favours remote targets or, without a hint for near
     * ones, the NIC's atomics are preferred on their own ({@link RmaTransport#atomicsPreferred}) and some target is
     * remote (GASNet's ibv-conduit chooses so too).
     */
    boolean chosen(AtomicType type, Set<AtomicOp> ops, int flags) {
        if (!takes(type, ops)) {
            return false;
        }
        if ((flags & AtomicDomain.FAVOR_REMOTE) != 0) {
            return true;
        }
        return (flags & (AtomicDomain.FAVOR_MY_RANK | AtomicDomain.FAVOR_MY_NBRHD)) == 0
            && transport.atomicsPreferred() && client.size() > 1;
    }

    /** Whether the NIC performs every operation of {@code ops} on {@code type}. */
    boolean takes(AtomicType type, Set<AtomicOp> ops) {
        for (AtomicOp op : ops) {
            if (!transport.atomicValid(datatype(type), code(op), true)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int start(AtomicType type, AtomicOp op, int peer, long offset, long a, long b, MemorySegment result,
              long resultOffset, Event completion, boolean immediate) {
        final int slot = inFlight.take(immediate);
        if (slot < 0) {
            return Am.BACK_PRESSURED;
        }
        inFlight.hold(slot, type, op, peer, offset, result, resultOffset, completion);
        final int datatype = datatype(type);
        final int code = code(op);
        final boolean cas = code == AtomicCodes.CSWAP;
        final long operand = cas ? b : operand(type, op, a);
        final long start = System.nanoTime();
        int rc;
        try {
            while ((rc = transport.atomic(peer, offset, datatype, code, operand, cas ? a : 0, fetched, 8L * slot,
                OWNER | slot)) == Conduit.NO_ROOM && !immediate) {
                if (System.nanoTime() - start > timeoutNs) {
                    throw new GexTimeoutException("rank " + client.rank() + ": the conduit would not take an atomic "
                        + op + " to rank " + peer + " for " + timeoutNs / 1_000_000_000L
                        + " s (GEX_BACKPRESSURE_TIMEOUT)");
                }
                CORE.progressWhileBlocked(client);
            }
        } catch (RuntimeException e) {
            inFlight.abandon(slot); // a thread's blocking event is reused: leave it complete
            throw CORE.closedOr(client, e);
        } catch (Error e) {
            inFlight.abandon(slot);
            throw e;
        }
        if (rc != Conduit.OK) {
            inFlight.abandon(slot);
            return Am.BACK_PRESSURED;
        }
        return Am.OK;
    }

    @Override
    public void onFrame(int channel, org.agrona.DirectBuffer buffer, int offset, int length) {
        throw new IllegalStateException("atomic completions only");
    }

    @Override
    public void onRmaCompletion(long operation, int status) {
        final int slot = (int) (operation & ~OWNER);
        if (!inFlight.holds(slot)) {
            throw new GexException("rank " + client.rank() + ": completion of NIC atomic 0x"
                + Long.toHexString(operation) + ", which is not in flight");
        }
        final long bits = inFlight.type(slot).bytes() == 4 ? fetched.get(ValueLayout.JAVA_INT, 8L * slot) & 0xffff_ffffL
            : fetched.get(ValueLayout.JAVA_LONG, 8L * slot);
        inFlight.finish(slot, status == Conduit.OK ? null : new GexException("the conduit failed the atomic "
            + inFlight.describe(slot) + ": " + RmaTransport.describe(status)), bits);
    }

    // ------------------------------------------------------------------------------------------ mapping

    static int datatype(AtomicType type) {
        return switch (type) {
            case INT32 -> AtomicCodes.INT32;
            case UINT32 -> AtomicCodes.UINT32;
            case INT64 -> AtomicCodes.INT64;
            case UINT64 -> AtomicCodes.UINT64;
            case FLOAT32 -> AtomicCodes.FLOAT;
            case FLOAT64 -> AtomicCodes.DOUBLE;
        };
    }

    /** GASNet's operation as libfabric's. */
    static int code(AtomicOp op) {
        return switch (op) {
            case SET, SWAP -> AtomicCodes.WRITE;
            case GET -> AtomicCodes.READ;
            case CAS, FCAS -> AtomicCodes.CSWAP;
            case ADD, FADD, SUB, FSUB, INC, FINC, DEC, FDEC -> AtomicCodes.SUM;
            case MULT, FMULT -> AtomicCodes.PROD;
            case MIN, FMIN -> AtomicCodes.MIN;
            case MAX, FMAX -> AtomicCodes.MAX;
            case AND, FAND -> AtomicCodes.BAND;
            case OR, FOR -> AtomicCodes.BOR;
            case XOR, FXOR -> AtomicCodes.BXOR;
        };
    }

    /** The operand libfabric's operation takes: SUB adds the negation, INC and DEC add one and minus one. */
    static long operand(AtomicType type, AtomicOp op, long a) {
        return switch (op) {
            case SUB, FSUB -> negate(type, a);
            case INC, FINC -> one(type, false);
            case DEC, FDEC -> one(type, true);
            default -> a;
        };
    }

    private static long negate(AtomicType type, long bits) {
        return switch (type) {
            case FLOAT32 -> bits ^ 0x8000_0000L;
            case FLOAT64 -> bits ^ Long.MIN_VALUE;
            default -> type.bytes() == 4 ? -bits & 0xffff_ffffL : -bits;
        };
    }

    private static long one(AtomicType type, boolean negative) {
        return switch (type) {
            case FLOAT32 -> Float.floatToRawIntBits(negative ? -1f : 1f) & 0xffff_ffffL;
            case FLOAT64 -> Double.doubleToRawLongBits(negative ? -1d : 1d);
            default -> negative ? (type.bytes() == 4 ? 0xffff_ffffL : -1L) : 1;
        };
    }
}
