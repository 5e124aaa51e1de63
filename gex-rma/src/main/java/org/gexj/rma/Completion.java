package org.gexj.rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One completion taken by {@link Pwc#probeLocal} or {@link Pwc#probeRemote}: which rank it concerns, its identifier
 * and, for a remote completion, the completion data its initiator sent (at most
 * {@link Pwc#MAX_COMPLETION_DATA} bytes). A flyweight: each probe overwrites it, so a caller keeps one per thread and
 * reads it before probing into it again; nothing is allocated per completion.
 */
public final class Completion {
    private final MemorySegment data = Arena.ofAuto().allocate(Pwc.MAX_COMPLETION_DATA, 8);
    private int rank = -1;
    private long id;
    private int length;

    /**
     * For a local completion, the operation's target (the rank written to, or read from); for a remote one, its
     * initiator.
     */
    public int rank() {
        return rank;
    }

    /** The local or remote completion identifier given to the operation. */
    public long id() {
        return id;
    }

    /** Bytes of completion data (0 for local completions and for operations sent without data). */
    public int dataLength() {
        return length;
    }

    /**
     * The buffer holding the completion data: its first {@link #dataLength()} bytes are this completion's, the rest
     * is stale. Overwritten by the next probe into this object.
     */
    public MemorySegment data() {
        return data;
    }

    /** The completion data's byte at {@code at}. */
    public byte dataByte(int at) {
        checkData(at, 1);
        return data.get(ValueLayout.JAVA_BYTE, at);
    }

    /** The completion data's long at {@code at} (native byte order, unaligned). */
    public long dataLong(int at) {
        checkData(at, 8);
        return data.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
    }

    /** A copy of the completion data (allocates: for tests and the control path). */
    public byte[] dataBytes() {
        return data.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private void checkData(int at, int size) {
        if (at < 0 || at > length - size) {
            throw new IndexOutOfBoundsException("completion data bytes [" + at + ", " + (at + size)
                + ") outside [0, " + length + ")");
        }
    }

    void set(int rank, long id, int length) {
        this.rank = rank;
        this.id = id;
        this.length = length;
    }

    @Override
    public String toString() {
        return "Completion[rank " + rank + ", id " + id + ", " + length + " bytes of data]";
    }
}
