package org.gexj.ibv.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.gexj.ibv.ffm.VerbsLayouts.IBV_CONTEXT;
import static org.gexj.ibv.ffm.VerbsLayouts.offset;

/**
 * verbs.h's data path, which the library does not export: {@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_post_srq_recv} and {@code ibv_poll_cq} are {@code static inline} functions that call the provider through
 * {@code struct ibv_context.ops}. One instance per opened device reads those pointers once; its methods call them
 * directly, allocate nothing and return the C return code: 0 or an errno ({@code ENOMEM} for a full send queue) for the
 * posts, the number of completions (or a negative value on error) for the poll.
 *
 * <p>Every QP, SRQ and CQ passed in must belong to the context this instance was made from.
 */
public final class VerbsOps {
    public static final long POLL_CQ = offset(IBV_CONTEXT, "ops", "poll_cq");
    public static final long POST_SRQ_RECV = offset(IBV_CONTEXT, "ops", "post_srq_recv");
    public static final long POST_SEND = offset(IBV_CONTEXT, "ops", "post_send");
    public static final long POST_RECV = offset(IBV_CONTEXT, "ops", "post_recv");

    // int (*)(void *queue, void *wr, void **bad_wr): post_send, post_recv, post_srq_recv
    private static final MethodHandle POST = Verbs.LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    // int (*)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
    private static final MethodHandle POLL = Verbs.LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    private final MemorySegment pollCq;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment postSrqRecv;

    /** Reads the ops of {@code context} (from {@link Verbs#openDevice}). */
    public VerbsOps(MemorySegment context) {
        final MemorySegment c = context.reinterpret(IBV_CONTEXT.byteSize());
        this.pollCq = required(c, POLL_CQ, "poll_cq");
        this.postSend = required(c, POST_SEND, "post_send");
        this.postRecv = required(c, POST_RECV, "post_recv");
        // a provider without SRQ support may leave it NULL: postSrqRecv says so when called
        this.postSrqRecv = c.get(ADDRESS, POST_SRQ_RECV);
    }

    private static MemorySegment required(MemorySegment context, long offset, String name) {
        final MemorySegment fn = context.get(ADDRESS, offset);
        if (fn.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("ibv_context " + context + ": ops." + name + " is NULL (the provider"
                + " does not implement it)");
        }
        return fn;
    }

    /**
     * {@code ibv_post_send(qp, wr, badWr)}.
     *
     * @param badWr room for one pointer: the first work request that failed, when the result is not 0
     * @return 0, or an errno
     */
    public int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(postSend, qp, wr, badWr);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_post_send", t);
        }
    }

    /** {@code ibv_post_send} of one prepared work request. */
    public int postSend(MemorySegment qp, SendWr wr) {
        return postSend(qp, wr.segment(), wr.badWr());
    }

    /** {@code ibv_post_recv(qp, wr, badWr)} on a QP with a receive queue of its own; 0 or an errno. */
    public int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST.invokeExact(postRecv, qp, wr, badWr);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_post_recv", t);
        }
    }

    /** {@code ibv_post_recv} of one prepared receive. */
    public int postRecv(MemorySegment qp, RecvWr wr) {
        return postRecv(qp, wr.segment(), wr.badWr());
    }

    /** {@code ibv_post_srq_recv(srq, wr, badWr)}; 0 or an errno. */
    public int postSrqRecv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        if (postSrqRecv.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("this device's provider has no ops.post_srq_recv (no SRQ support)");
        }
        try {
            return (int) POST.invokeExact(postSrqRecv, srq, wr, badWr);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_post_srq_recv", t);
        }
    }

    /** {@code ibv_post_srq_recv} of one prepared receive. */
    public int postSrqRecv(MemorySegment srq, RecvWr wr) {
        return postSrqRecv(srq, wr.segment(), wr.badWr());
    }

    /**
     * {@code ibv_poll_cq(cq, entries, wc)}.
     *
     * @return the number of completions written to {@code wc} (0 if none), negative on error
     */
    public int pollCq(MemorySegment cq, int entries, MemorySegment wc) {
        try {
            return (int) POLL.invokeExact(pollCq, cq, entries, wc);
        } catch (Throwable t) {
            throw Errno.unexpected("ibv_poll_cq", t);
        }
    }

    /** {@code ibv_poll_cq} into all of {@code wc}'s entries. */
    public int pollCq(MemorySegment cq, WorkCompletions wc) {
        return pollCq(cq, wc.capacity(), wc.segment());
    }
}
