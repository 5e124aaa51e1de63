package org.gexj.rdma.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One rank's registered segment as the attach's allgather carries it: version, base address, size and remote key,
 * little-endian. Control path.
 */
public final class RdmaSegmentCodec {
    public static final byte VERSION = 1;
    /** Bytes of a segment blob. */
    public static final int LENGTH = 1 + 3 * Long.BYTES;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private RdmaSegmentCodec() {
    }

    /** One rank's registered segment. */
    public record Segment(long base, long size, long key) {
    }

    public static byte[] encode(Segment s) {
        return ByteBuffer.allocate(LENGTH).order(ORDER).put(VERSION).putLong(s.base()).putLong(s.size())
            .putLong(s.key()).array();
    }

    /** @throws IllegalArgumentException naming {@code rank} if the blob is not a segment of this version */
    public static Segment decode(byte[] blob, int rank) {
        if (blob.length != LENGTH) {
            throw new IllegalArgumentException("rank " + rank + "'s segment blob has " + blob.length + " bytes, not "
                + LENGTH);
        }
        final ByteBuffer b = ByteBuffer.wrap(blob).order(ORDER);
        final byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("rank " + rank + " sent a segment blob of version " + version
                + ", this rank speaks " + VERSION);
        }
        return new Segment(b.getLong(), b.getLong(), b.getLong());
    }
}
