package org.gexj.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A frame of the core itself on a conduit's request channel (today: one message of the dissemination barrier),
 * told apart from AM frames by its first byte.
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------+---------------+---------------+---------------+
 *  |1|  version    |     type      |     round     |    parity     |  0
 *  +---------------+---------------+---------------+---------------+
 *  |                          source rank                          |  4
 *  +---------------------------------------------------------------+
 *  first byte: the high bit marks a control frame (an AM frame's first byte is its version, below 128), the low
 *  seven bits are this format's version. type 1 BARRIER: round of the dissemination barrier, phase parity (0/1).
 * </pre>
 * Integers are in the buffer's native (little-endian) order.
 */
public final class ControlFrameFlyweight {
    public static final int MARKER = 0x80;
    public static final int VERSION = 1;
    public static final int TYPE_BARRIER = 1;
    public static final int LENGTH = 8;

    private static final int TYPE_OFFSET = 1;
    private static final int ROUND_OFFSET = 2;
    private static final int PARITY_OFFSET = 3;
    private static final int SOURCE_OFFSET = 4;

    private ControlFrameFlyweight() {
    }

    /** True if the frame at {@code offset} is a control frame (any version), not an AM frame. */
    public static boolean isControl(DirectBuffer b, int offset, int length) {
        return length > 0 && (b.getByte(offset) & MARKER) != 0;
    }

    public static void encodeBarrier(MutableDirectBuffer b, int at, int round, int parity, int source) {
        b.putByte(at, (byte) (MARKER | VERSION));
        b.putByte(at + TYPE_OFFSET, (byte) TYPE_BARRIER);
        b.putByte(at + ROUND_OFFSET, (byte) round);
        b.putByte(at + PARITY_OFFSET, (byte) parity);
        b.putInt(at + SOURCE_OFFSET, source);
    }

    /** @return null if the frame is a well-formed barrier frame of this version, else why not */
    public static String validateBarrier(DirectBuffer b, int at, int length, int rounds, int ranks) {
        if (length != LENGTH) {
            return "control frame of " + length + " bytes, expected " + LENGTH;
        }
        if ((b.getByte(at) & 0x7f) != VERSION) {
            return "control frame version " + (b.getByte(at) & 0x7f) + ", expected " + VERSION;
        }
        if (b.getByte(at + TYPE_OFFSET) != TYPE_BARRIER) {
            return "control frame type " + b.getByte(at + TYPE_OFFSET) + " is unknown";
        }
        if (round(b, at) >= rounds || parity(b, at) > 1) {
            return "barrier round " + round(b, at) + " (of " + rounds + ") or parity " + parity(b, at)
                + " out of range";
        }
        if (source(b, at) < 0 || source(b, at) >= ranks) {
            return "barrier source rank " + source(b, at) + " outside [0, " + ranks + ")";
        }
        return null;
    }

    public static int round(DirectBuffer b, int at) {
        return b.getByte(at + ROUND_OFFSET) & 0xff;
    }

    public static int parity(DirectBuffer b, int at) {
        return b.getByte(at + PARITY_OFFSET) & 0xff;
    }

    public static int source(DirectBuffer b, int at) {
        return b.getInt(at + SOURCE_OFFSET);
    }
}
