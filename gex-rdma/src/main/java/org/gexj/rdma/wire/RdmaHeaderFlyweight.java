package org.gexj.rdma.wire;

import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * The header the ofi conduit puts before every message it sends: which kind of message, on which channel, from
 * which rank, and the credits the sender gives back to the receiver (piggybacked on a frame, or alone in a credit
 * message).
 * <pre>
 *   0        8        16       24       32                                                      63
 *  +--------+--------+--------+--------+-------------------------------------------------------+
 *  |version |  kind  |channel | unused |                source rank (int32)                    |
 *  +--------+--------+--------+--------+-------------------------------------------------------+
 *  |  request-channel credit units returned (int32)  |  reply-channel credit units returned     |
 *  +--------------------------------------------------+-------------------------------------------+
 *  16 bytes, little-endian; an AM frame follows a FRAME header.
 * </pre>
 * kind: {@link #KIND_FRAME} (an AM frame of {@code channel} follows), {@link #KIND_CREDIT} or {@link #KIND_CLOSE}
 * (nothing follows).
 * Credits count units of {@link #CREDIT_UNIT} receive-buffer bytes ({@link #units}); a receiver returns a frame's
 * units once it has delivered the frame.
 */
public final class RdmaHeaderFlyweight {
    public static final int LENGTH = 16;
    public static final byte VERSION = 1;
    public static final byte KIND_FRAME = 1;
    public static final byte KIND_CREDIT = 2;
    /** The sender is closing: it sends nothing more and waits for every peer's CLOSE before it closes its endpoint. */
    public static final byte KIND_CLOSE = 3;
    /** Receive-buffer bytes one credit unit stands for. */
    public static final int CREDIT_UNIT = 256;

    private static final int VERSION_OFFSET = 0;
    private static final int KIND_OFFSET = 1;
    private static final int CHANNEL_OFFSET = 2;
    private static final int SOURCE_OFFSET = 4;
    private static final int REQUEST_CREDITS_OFFSET = 8;
    private static final int REPLY_CREDITS_OFFSET = 12;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private AtomicBuffer buffer;
    private int offset;

    public RdmaHeaderFlyweight wrap(AtomicBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** Credit units a message of {@code length} bytes (header included) costs: its bytes, rounded up, plus slack. */
    public static int units(int length) {
        // providers may align messages in a multi-receive buffer: one unit of slack covers it
        return (length + CREDIT_UNIT - 1) / CREDIT_UNIT + 1;
    }

    public RdmaHeaderFlyweight write(byte kind, int channel, int source, int requestCredits, int replyCredits) {
        if (channel != 0 && channel != 1) {
            throw new IllegalArgumentException("channel " + channel + " is neither 0 (request) nor 1 (reply)");
        }
        buffer.putByte(offset + VERSION_OFFSET, VERSION);
        buffer.putByte(offset + KIND_OFFSET, kind);
        buffer.putByte(offset + CHANNEL_OFFSET, (byte) channel);
        buffer.putByte(offset + CHANNEL_OFFSET + 1, (byte) 0);
        buffer.putInt(offset + SOURCE_OFFSET, source, ORDER);
        buffer.putInt(offset + REQUEST_CREDITS_OFFSET, requestCredits, ORDER);
        buffer.putInt(offset + REPLY_CREDITS_OFFSET, replyCredits, ORDER);
        return this;
    }

    public byte version() {
        return buffer.getByte(offset + VERSION_OFFSET);
    }

    public byte kind() {
        return buffer.getByte(offset + KIND_OFFSET);
    }

    public int channel() {
        return buffer.getByte(offset + CHANNEL_OFFSET) & 0xFF;
    }

    public int source() {
        return buffer.getInt(offset + SOURCE_OFFSET, ORDER);
    }

    public int requestCredits() {
        return buffer.getInt(offset + REQUEST_CREDITS_OFFSET, ORDER);
    }

    public int replyCredits() {
        return buffer.getInt(offset + REPLY_CREDITS_OFFSET, ORDER);
    }

    /**
     * @return null if a received message of {@code length} bytes from a job of {@code ranks} is well formed, else
     *         why not
     */
    public String validate(int length, int ranks) {
        if (length < LENGTH) {
            return "message of " + length + " bytes is shorter than the " + LENGTH + "-byte header";
        }
        if (version() != VERSION) {
            return "header version " + version() + ", expected " + VERSION;
        }
        if (source() < 0 || source() >= ranks) {
            return "source rank " + source() + " outside [0, " + ranks + ")";
        }
        if (requestCredits() < 0 || replyCredits() < 0) {
            return "negative credits returned: " + requestCredits() + ", " + replyCredits();
        }
        if (kind() == KIND_FRAME) {
            return channel() == 0 || channel() == 1 ? null : "frame on channel " + channel();
        }
        return kind() == KIND_CREDIT || kind() == KIND_CLOSE ? null : "unknown kind " + kind();
    }
}
