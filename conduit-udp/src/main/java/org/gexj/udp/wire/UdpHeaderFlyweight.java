package org.gexj.udp.wire;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The header before every datagram of the udp conduit. A DATA datagram carries one fragment of one AM frame of one
 * channel's reliable stream; an ACK datagram carries nothing else. Both report, for each of the two streams the
 * receiver of this datagram sends to its sender, the next sequence number delivered (cumulative) and which of the
 * 64 after it are held (selective).
 * <pre>
 *   0 version  1 type  2 channel  3 flags  4 checksum (CRC32C of the whole datagram, or of the header alone with
 *                                              flag 8; this field zero)
 *   8 job cookie (int64)
 *  16 source rank   20 target rank
 *  24 sequence number of this fragment in its (source, target, channel) stream (int64)
 *  32 request stream: next expected (int64)   40 request stream: selective bits (int64)
 *  48 reply stream: next expected (int64)     56 reply stream: selective bits (int64)
 *  64 frame length  68 this fragment's offset in the frame  72 this fragment's length  76 unused
 *  80 bytes, little-endian; the fragment's bytes follow a DATA header.
 * </pre>
 * Selective bit {@code k} set means sequence number {@code next + k} is held by the receiver, not yet delivered.
 * Flags: 1 (ACK only) = answer with an acknowledgement at once; 2 and 4 = since its last report the receiver got a
 * duplicate on the request (2) or reply (4) stream, so a retransmission of its sender was needless (as TCP's D-SACK);
 * 8 = the checksum covers these 80 bytes only, the fragment's bytes are left to UDP's own checksum (the sender's
 * {@code GEX_UDP_CHECKSUM=header}). The flag is itself covered, so a damaged flag fails the check either way.
 */
public final class UdpHeaderFlyweight {
    public static final int LENGTH = 80;
    public static final byte VERSION = 1;
    public static final byte TYPE_DATA = 1;
    public static final byte TYPE_ACK = 2;

    private static final int VERSION_OFFSET = 0;
    private static final int TYPE_OFFSET = 1;
    private static final int CHANNEL_OFFSET = 2;
    private static final int FLAGS_OFFSET = 3;
    private static final byte FLAG_ACK_REQUEST = 1;
    private static final int FLAG_DUPLICATE_SHIFT = 1;
    private static final byte FLAG_HEADER_CHECKSUM = 8;
    private static final int CHECKSUM_OFFSET = 4;
    private static final int COOKIE_OFFSET = 8;
    private static final int SOURCE_OFFSET = 16;
    private static final int TARGET_OFFSET = 20;
    private static final int SEQUENCE_OFFSET = 24;
    private static final int ACK_OFFSET = 32;
    private static final int FRAME_LENGTH_OFFSET = 64;
    private static final int FRAGMENT_OFFSET_OFFSET = 68;
    private static final int FRAGMENT_LENGTH_OFFSET = 72;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** What {@link #check} found. */
    public static final int VALID = 0;
    public static final int TRUNCATED = 1;
    public static final int BAD_VERSION = 2;
    public static final int BAD_CHECKSUM = 3;
    public static final int FOREIGN_JOB = 4;
    public static final int UNKNOWN_PEER = 5;
    public static final int MALFORMED = 6;

    private final CRC32C crc = new CRC32C();
    private UnsafeBuffer buffer;
    private ByteBuffer bytes;
    private int offset;

    /**
     * Wraps the header at {@code offset} of {@code buffer}, which must wrap a direct {@link ByteBuffer}: the checksum
     * reads through it.
     */
    public UdpHeaderFlyweight wrap(UnsafeBuffer buffer, int offset) {
        this.buffer = buffer;
        this.bytes = buffer.byteBuffer();
        this.offset = offset;
        return this;
    }

    public UdpHeaderFlyweight data(long cookie, int source, int target, int channel, long sequence, int frameLength,
                                   int fragmentOffset, int fragmentLength) {
        start(TYPE_DATA, cookie, source, target, channel);
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence, ORDER);
        buffer.putInt(offset + FRAME_LENGTH_OFFSET, frameLength, ORDER);
        buffer.putInt(offset + FRAGMENT_OFFSET_OFFSET, fragmentOffset, ORDER);
        buffer.putInt(offset + FRAGMENT_LENGTH_OFFSET, fragmentLength, ORDER);
        return this;
    }

    /** An acknowledgement; with {@code request}, one that asks for an acknowledgement back at once. */
    public UdpHeaderFlyweight ack(long cookie, int source, int target, boolean request) {
        start(TYPE_ACK, cookie, source, target, 0);
        buffer.putByte(offset + FLAGS_OFFSET, request ? FLAG_ACK_REQUEST : 0);
        buffer.putLong(offset + SEQUENCE_OFFSET, 0, ORDER);
        buffer.putInt(offset + FRAME_LENGTH_OFFSET, 0, ORDER);
        buffer.putInt(offset + FRAGMENT_OFFSET_OFFSET, 0, ORDER);
        buffer.putInt(offset + FRAGMENT_LENGTH_OFFSET, 0, ORDER);
        return this;
    }

    private void start(byte type, long cookie, int source, int target, int channel) {
        buffer.putByte(offset + VERSION_OFFSET, VERSION);
        buffer.putByte(offset + TYPE_OFFSET, type);
        buffer.putByte(offset + CHANNEL_OFFSET, (byte) channel);
        buffer.putByte(offset + FLAGS_OFFSET, (byte) 0);
        buffer.putLong(offset + COOKIE_OFFSET, cookie, ORDER);
        buffer.putInt(offset + SOURCE_OFFSET, source, ORDER);
        buffer.putInt(offset + TARGET_OFFSET, target, ORDER);
        buffer.putInt(offset + 76, 0, ORDER);
    }

    /** Reports duplicates received since the last report: bit {@code c} of {@code channels} for channel {@code c}. */
    public UdpHeaderFlyweight duplicates(int channels) {
        final byte flags = buffer.getByte(offset + FLAGS_OFFSET);
        buffer.putByte(offset + FLAGS_OFFSET, (byte) (flags | (channels & 3) << FLAG_DUPLICATE_SHIFT));
        return this;
    }

    /**
     * The datagram's sender got a duplicate on stream {@code channel} from this rank: a retransmission was needless.
     */
    public boolean duplicateReported(int channel) {
        return (buffer.getByte(offset + FLAGS_OFFSET) & 1 << FLAG_DUPLICATE_SHIFT + channel) != 0;
    }

    /** Sets what the datagram's receiver learns of its stream {@code channel} towards the datagram's sender. */
    public UdpHeaderFlyweight acknowledgement(int channel, long next, long selective) {
        buffer.putLong(offset + ACK_OFFSET + 16 * channel, next, ORDER);
        buffer.putLong(offset + ACK_OFFSET + 16 * channel + 8, selective, ORDER);
        return this;
    }

    /**
     * Writes the checksum of the datagram of {@code length} bytes that starts at this header: of all of it, or with
     * {@code headerOnly} of the header alone (and says so in the flags).
     */
    public void seal(int length, boolean headerOnly) {
        buffer.putInt(offset + CHECKSUM_OFFSET, 0, ORDER);
        if (headerOnly) {
            final byte flags = buffer.getByte(offset + FLAGS_OFFSET);
            buffer.putByte(offset + FLAGS_OFFSET, (byte) (flags | FLAG_HEADER_CHECKSUM));
        }
        buffer.putInt(offset + CHECKSUM_OFFSET, checksum(headerOnly ? LENGTH : length), ORDER);
    }

    private int checksum(int length) {
        crc.reset();
        bytes.limit(offset + length).position(offset);
        crc.update(bytes);
        bytes.clear();
        return (int) crc.getValue();
    }

    /**
     * Checks a received datagram of {@code length} bytes: {@link #VALID} or why it must be dropped. Leaves the
     * checksum field zero.
     */
    public int check(int length, long cookie, int self, int ranks) {
        if (length < LENGTH) {
            return TRUNCATED;
        }
        if (buffer.getByte(offset + VERSION_OFFSET) != VERSION) {
            return BAD_VERSION;
        }
        final int sent = buffer.getInt(offset + CHECKSUM_OFFSET, ORDER);
        buffer.putInt(offset + CHECKSUM_OFFSET, 0, ORDER);
        final byte type = type();
        if (type == TYPE_DATA && LENGTH + fragmentLength() > length) {
            return TRUNCATED;
        }
        final boolean headerOnly = (buffer.getByte(offset + FLAGS_OFFSET) & FLAG_HEADER_CHECKSUM) != 0;
        if (checksum(headerOnly ? LENGTH : length) != sent) {
            return BAD_CHECKSUM;
        }
        if (buffer.getLong(offset + COOKIE_OFFSET, ORDER) != cookie) {
            return FOREIGN_JOB;
        }
        final int source = source();
        if (source < 0 || source >= ranks || target() != self) {
            return UNKNOWN_PEER;
        }
        if (type == TYPE_DATA) {
            final int channel = channel();
            final long frame = frameLength();
            final long at = fragmentOffset();
            final long n = fragmentLength();
            if ((channel != 0 && channel != 1) || sequence() < 0 || n < 0 || at < 0 || at + n > frame
                || LENGTH + n != length) {
                return MALFORMED;
            }
        } else if (type != TYPE_ACK || length != LENGTH) {
            return MALFORMED;
        }
        return VALID;
    }

    /** The sender asks for an acknowledgement at once: it holds fragments only selectively acknowledged. */
    public boolean ackRequested() {
        return type() == TYPE_ACK && (buffer.getByte(offset + FLAGS_OFFSET) & FLAG_ACK_REQUEST) != 0;
    }

    public byte type() {
        return buffer.getByte(offset + TYPE_OFFSET);
    }

    public int channel() {
        return buffer.getByte(offset + CHANNEL_OFFSET);
    }

    public int source() {
        return buffer.getInt(offset + SOURCE_OFFSET, ORDER);
    }

    public int target() {
        return buffer.getInt(offset + TARGET_OFFSET, ORDER);
    }

    public long sequence() {
        return buffer.getLong(offset + SEQUENCE_OFFSET, ORDER);
    }

    public long next(int channel) {
        return buffer.getLong(offset + ACK_OFFSET + 16 * channel, ORDER);
    }

    public long selective(int channel) {
        return buffer.getLong(offset + ACK_OFFSET + 16 * channel + 8, ORDER);
    }

    public int frameLength() {
        return buffer.getInt(offset + FRAME_LENGTH_OFFSET, ORDER);
    }

    public int fragmentOffset() {
        return buffer.getInt(offset + FRAGMENT_OFFSET_OFFSET, ORDER);
    }

    public int fragmentLength() {
        return buffer.getInt(offset + FRAGMENT_LENGTH_OFFSET, ORDER);
    }
}
