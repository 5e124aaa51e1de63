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
    private final AtomicsInFlight inFlight;
    private final ThreadLocal<int[]> args = ThreadLocal.withInitial(() -> new int[AtomicArgs.REQUEST_ARGS]);

    AmAtomics(Am am) {
        this.am = am;
        this.client = am.client();
        this.inFlight = new AtomicsInFlight(client, client.config().getInt("GEX_AD_AM_OPS", 256, 1, 1 << 20),
            client.config().getLong("GEX_BACKPRESSURE_TIMEOUT", 60, 1, 86_400) * 1_000_000_000L,
            "remote atomic operation slots (GEX_AD_AM_OPS)");
        final AmAccess access = AmAccess.get();
        access.registerSystem(am, REQUEST,
            AmHandler.shortRequest(AtomicArgs.REQUEST_ARGS, this::onRequest).named("atomic"));
        access.registerSystem(am, REPLY, AmHandler.shortReply(4, this::onReply).named("atomic-reply"));
    }

    @Override
    public int start(AtomicType type, AtomicOp op, int peer, long offset, long a, long b, MemorySegment result,
              long resultOffset, Event completion, boolean immediate) {
        final int slot = inFlight.take(immediate);
        if (slot < 0) {
            return Am.BACK_PRESSURED;
        }
        inFlight.hold(slot, type, op, peer, offset, result, resultOffset, completion);
        final int[] x = args.get();
        x[AtomicArgs.SLOT] = slot;
        x[AtomicArgs.CODE] = AtomicArgs.code(type.ordinal(), op.ordinal());
        x[AtomicArgs.OFFSET] = AtomicArgs.high(offset);
        x[AtomicArgs.OFFSET + 1] = AtomicArgs.low(offset);
        x[AtomicArgs.OPERAND1] = AtomicArgs.high(a);
        x[AtomicArgs.OPERAND1 + 1] = AtomicArgs.low(a);
        x[AtomicArgs.OPERAND2] = AtomicArgs.high(b);
        x[AtomicArgs.OPERAND2 + 1] = AtomicArgs.low(b);
        final int code;
        try {
            code = am.requestShort(peer, REQUEST, immediate ? Flags.IMMEDIATE : 0, x, AtomicArgs.REQUEST_ARGS);
        } catch (RuntimeException e) {
            inFlight.abandon(slot); // a thread's blocking event is reused: leave it complete
            throw e;
        }
        if (code != Am.OK) {
            inFlight.abandon(slot);
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
        inFlight.finish(slot, args.get(AtomicArgs.STATUS) == AtomicArgs.APPLIED ? null
            : new GexException("the target refused the atomic " + inFlight.describe(slot)
                + ": no aligned value of that type in its segment there"),
            AtomicArgs.join(args.get(AtomicArgs.VALUE), args.get(AtomicArgs.VALUE + 1)));
    }
}
