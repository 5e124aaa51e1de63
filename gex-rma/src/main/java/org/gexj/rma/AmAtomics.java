package org.gexj.rma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.GexException;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.am.Args;
import org.gexj.am.Token;
import org.gexj.am.internal.AmAccess;
import org.gexj.internal.CoreAccess;
import org.gexj.internal.OperationSlots;
import org.gexj.rma.wire.AtomicArgs;

import java.lang.foreign.MemorySegment;

/**
 * Remote atomics over active messages, GASNet's reference ({@code extended-ref/ratomic}): a Short request names the
 * operation, the target offset and the operands; the target's handler applies it to its segment with the CPU's atomics
 * ({@link AtomicArithmetic}) and answers with its previous value, which the initiator stores where the call asked and
 * then completes the operation. Operations in flight live in {@code GEX_AD_AM_OPS} slots whose index travels in the
 * messages, so nothing is allocated per operation.
 *
 * <p>Threads: {@link #start} from any thread; the handlers on the polling thread.
 */
final class AmAtomics implements AtomicEngine {
    private static final CoreAccess CORE = CoreAccess.get();
    private static final AtomicType[] TYPES = AtomicType.values();
    static final int REQUEST = 84;
    static final int REPLY = 85;

    private final Am am;
    private final Client client;
    private final OperationSlots slots;
    private final Event[] events;
    private final MemorySegment[] results;
    private final long[] resultOffsets;
    private final AtomicType[] types;
    private final AtomicOp[] ops;
    private final int[] peers;
    private final long[] offsets;
    private final ThreadLocal<int[]> args = ThreadLocal.withInitial(() -> new int[AtomicArgs.REQUEST_ARGS]);

    AmAtomics(Am am) {
        this.am = am;
        this.client = am.client();
        final int count = client.config().getInt("GEX_AD_AM_OPS", 256, 1, 1 << 20);
        this.slots = new OperationSlots(client, count,
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L,
            "remote atomic operation slots (GEX_AD_AM_OPS)");
        this.events = new Event[count];
        this.results = new MemorySegment[count];
        this.resultOffsets = new long[count];
        this.types = new AtomicType[count];
        this.ops = new AtomicOp[count];
        this.peers = new int[count];
        this.offsets = new long[count];
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, REQUEST,
            AmHandler.shortRequest(AtomicArgs.REQUEST_ARGS, this::onRequest).named("atomic"));
        access.registerSystem(am, REPLY, AmHandler.shortReply(4, this::onReply).named("atomic-reply"));
    }

    @Override
    public int start(AtomicType type, AtomicOp op, int peer, long offset, long a, long b, MemorySegment result,
              long resultOffset, Event completion, boolean immediate) {
        final int slot = immediate ? slots.tryAcquire() : slots.acquire();
        if (slot < 0) {
            return Am.BACK_PRESSURED;
        }
        events[slot] = completion;
        results[slot] = result;
        resultOffsets[slot] = resultOffset;
        types[slot] = type;
        ops[slot] = op;
        peers[slot] = peer;
        offsets[slot] = offset;
        final int[] x = args.get();
        x[AtomicArgs.SLOT] = slot;
        x[AtomicArgs.CODE] = AtomicArgs.code(type.ordinal(), op.ordinal());
        x[AtomicArgs.OFFSET] = AtomicArgs.high(offset);
        x[AtomicArgs.OFFSET + 1] = AtomicArgs.low(offset);
        x[AtomicArgs.OPERAND1] = AtomicArgs.high(a);
        x[AtomicArgs.OPERAND1 + 1] = AtomicArgs.low(a);
        x[AtomicArgs.OPERAND2] = AtomicArgs.high(b);
        x[AtomicArgs.OPERAND2 + 1] = AtomicArgs.low(b);
        CORE.begin(completion, 1);
        final int code;
        try {
            code = am.requestShort(peer, REQUEST, immediate ? Flags.IMMEDIATE : 0, x, AtomicArgs.REQUEST_ARGS);
        } catch (RuntimeException e) {
            retire(slot);
            CORE.complete(completion, 1); // a thread's blocking event is reused: leave it complete
            throw e;
        }
        if (code != Am.OK) {
            retire(slot);
            CORE.complete(completion, 1);
        }
        return code;
    }

    private void onRequest(Token token, Args args) {
        final AtomicType type = TYPES[AtomicArgs.type(args.get(AtomicArgs.CODE))];
        final long at = AtomicArgs.join(args.get(AtomicArgs.OFFSET), args.get(AtomicArgs.OFFSET + 1));
        final MemorySegment memory = client.segment().memory();
        if (at < 0 || at > memory.byteSize() - type.bytes() || (at & (type.bytes() - 1)) != 0) {
            token.replyShort(REPLY, args.get(AtomicArgs.SLOT), AtomicArgs.OUT_OF_SEGMENT, 0, 0);
            return;
        }
        final long old = AtomicArithmetic.apply(type, AtomicOp.of(AtomicArgs.op(args.get(AtomicArgs.CODE))),
            memory.address() + at, AtomicArgs.join(args.get(AtomicArgs.OPERAND1), args.get(AtomicArgs.OPERAND1 + 1)),
            AtomicArgs.join(args.get(AtomicArgs.OPERAND2), args.get(AtomicArgs.OPERAND2 + 1)));
        token.replyShort(REPLY, args.get(AtomicArgs.SLOT), AtomicArgs.APPLIED, AtomicArgs.high(old),
            AtomicArgs.low(old));
    }

    private void onReply(Token token, Args args) {
        final int slot = args.get(AtomicArgs.SLOT);
        final Event e = events[slot];
        Throwable failure = null;
        if (args.get(AtomicArgs.STATUS) != AtomicArgs.APPLIED) {
            failure = new GexException("rank " + peers[slot] + " refused the atomic " + ops[slot] + " on the "
                + types[slot] + " at offset " + offsets[slot] + " of its segment: no aligned value of that type there");
        } else if (results[slot] != null) {
            try {
                AtomicDomain.storeChecked(types[slot], results[slot], resultOffsets[slot],
                    AtomicArgs.join(args.get(AtomicArgs.VALUE), args.get(AtomicArgs.VALUE + 1)));
            } catch (RuntimeException storing) {
                failure = storing; // the result's arena closed meanwhile
            }
        }
        retire(slot);
        if (failure == null) {
            CORE.complete(e, 1);
        } else {
            CORE.fail(e, 1, failure);
        }
    }

    private void retire(int slot) {
        events[slot] = null;
        results[slot] = null;
        slots.release(slot);
    }
}
