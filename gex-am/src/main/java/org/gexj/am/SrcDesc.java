package org.gexj.am;

import org.gexj.Lc;
import org.gexj.am.wire.AmFrameFlyweight;
import org.gexj.spi.Claim;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A negotiated-payload AM in preparation ({@code gex_AM_SrcDesc_t}): returned by a prepare call, filled through
 * {@link #buffer()} (at most {@link #size()} bytes), then consumed by exactly one commit or {@link #cancel()} on the
 * same thread. Between prepare and commit the thread may not poll, wait or send anything else.
 *
 * <p>One instance per thread is reused: the data path allocates nothing.
 */
public final class SrcDesc {
    final AmNpam npam;
    final PayloadBuffer view = new PayloadBuffer();
    Thread thread;
    boolean open;
    Token token;
    int peer;
    int channel;
    int category;
    int nargs;
    int flags;
    long size;
    long dest;
    /** This descriptor's frame: claimed at prepare for an in-place Medium and with IMMEDIATE, else at commit. */
    final Claim claim = new Claim();
    /**
     * The frame was claimed at prepare: a Medium written in place in the conduit's buffer ({@link #inPlace}), or with
     * IMMEDIATE any other form, reserved so that the commit cannot block.
     */
    boolean claimed;
    boolean inPlace;
    Lc lc;
    MemorySegment clientBuffer;
    final int[] scratchArgs = new int[AmFrameFlyweight.MAX_ARGS];
    private MemorySegment bounce = MemorySegment.NULL;

    SrcDesc(AmNpam npam) {
        this.npam = npam;
    }

    /** Bytes available for the payload; between the prepare call's least and most. */
    public long size() {
        checkOpen();
        return size;
    }

    /**
     * Where to write the payload, bounded to the {@link #size()} granted bytes: the client's buffer if one was given to
     * prepare, else a library buffer (for a Medium, the conduit's send buffer itself, so the payload is written in
     * place).
     */
    public PayloadBuffer buffer() {
        checkOpen();
        return view;
    }

    /** Long only: the destination offset given at prepare. */
    public long dest() {
        checkOpen();
        return dest;
    }

    /** Sends the prepared message with {@code nbytes} of payload and no args. */
    public void commit(int handler, long nbytes) {
        npam.commit(this, handler, nbytes, EMPTY, 0);
    }

    public void commit(int handler, long nbytes, int a0) {
        final int[] a = scratchArgs;
        a[0] = a0;
        npam.commit(this, handler, nbytes, a, 1);
    }

    public void commit(int handler, long nbytes, int a0, int a1) {
        final int[] a = scratchArgs;
        a[0] = a0;
        a[1] = a1;
        npam.commit(this, handler, nbytes, a, 2);
    }

    public void commit(int handler, long nbytes, int a0, int a1, int a2) {
        final int[] a = scratchArgs;
        a[0] = a0;
        a[1] = a1;
        a[2] = a2;
        npam.commit(this, handler, nbytes, a, 3);
    }

    /** Sends the prepared message with {@code nargs} args from {@code args}. */
    public void commit(int handler, long nbytes, int[] args, int nargs) {
        AmChecks.args(args, nargs);
        npam.commit(this, handler, nbytes, args, nargs);
    }

    /** Abandons the prepared message; nothing is sent. */
    public void cancel() {
        npam.cancel(this);
    }

    void checkOpen() {
        if (!open || thread != Thread.currentThread()) {
            throw new IllegalStateException("this SrcDesc is not prepared on this thread"
                + " (already committed or cancelled?)");
        }
    }

    /** A library buffer of at least {@code bytes}, grown (and so allocated) only when a larger one is asked for. */
    MemorySegment bounce(long bytes) {
        if (bounce.byteSize() < bytes) {
            bounce = Arena.ofAuto().allocate(Math.max(bytes, 4096), 64);
        }
        return bounce;
    }

    private static final int[] EMPTY = new int[0];
}
