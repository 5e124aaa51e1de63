package org.gexj.spi;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A region of a conduit's send memory claimed for one frame. {@link Conduit#claim} fills it; the caller writes the
 * frame at {@code [offset(), offset() + length())} of {@link #buffer()} and then passes the same claim to
 * {@link Conduit#commit} or {@link Conduit#abort}: no second lookup. A flyweight reused by its owner (one per sending
 * thread, one per prepared negotiated-payload message), so that several threads claim at once and a conduit may hand
 * out pooled send buffers; the conduit keeps in {@link #handle()} whatever it needs to find the region again.
 */
public final class Claim {
    private AtomicBuffer buffer;
    private int offset;
    private int length;
    private int target;
    private int channel;
    private long handle;
    private final Thread owner;

    /** A claim of no particular thread. */
    public Claim() {
        this(null);
    }

    /** A claim that only {@code owner} uses (a thread's own, which its owner may be asked for). */
    public Claim(Thread owner) {
        this.owner = owner;
    }

    /** The thread this claim belongs to, or null. */
    public Thread owner() {
        return owner;
    }

    /** Conduit use: the claimed region. */
    public void set(AtomicBuffer buffer, int offset, int length, int target, int channel, long handle) {
        if (this.buffer != buffer) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            this.buffer = buffer;
        }
        this.offset = offset;
        this.length = length;
        this.target = target;
        this.channel = channel;
        this.handle = handle;
    }

    public AtomicBuffer buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    public int target() {
        return target;
    }

    public int channel() {
        return channel;
    }

    /** The conduit's own reference to the region (a ring index, a pooled buffer's id). */
    public long handle() {
        return handle;
    }
}
