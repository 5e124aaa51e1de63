package org.gexj.am.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * An AM frame: what one Request or Reply puts on a conduit channel.
 * <pre>
 *   0               1               2               3
 *   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
 *  +---------------+---------------+---------------+---------------+
 *  |    version    |     type      |    handler    |     nargs     |  0
 *  +---------------+---------------+---------------+---------------+
 *  |                          source rank                          |  4
 *  +---------------------------------------------------------------+
 *  |                   payload length (uint32)                     |  8
 *  +-------------------------------+-------------------------------+
 *  |  credit slot + 1 (int16)      |  reassembly nonce (int16)     | 12
 *  +-------------------------------+-------------------------------+
 *  |                   args[0 .. nargs) int32 each                 | 16
 *  +---------------------------------------------------------------+
 *  |  Long only: destination offset (64 bits), at the first        |
 *  |  8-aligned offset after the args                              |
 *  +---------------------------------------------------------------+
 *  |  inline payload (Medium; Long when not cross-mapped), at the  |
 *  |  first 8-aligned offset after the args (and a Long's dest)    |
 *  +---------------------------------------------------------------+
 *  type: bits 0-1 category (0 Short, 1 Medium, 2 Long), bit 2 request (else reply),
 *        bit 3 payload inline (Long only; Medium payload is always inline),
 *        bit 4 reassembly (Long, not inline: the payload lands by a remote write tagged with the credit slot, in
 *        either order with this envelope; else it was in place before the envelope was sent),
 *        bit 5 rendezvous (a Long request whose payload the target pulls from the sender's registered memory, named
 *        by a 32-byte trailer where an inline payload would start: offset in the registration (int64), the
 *        registration's handle (int32), the sender's operation (int32), which the target's answer carries back,
 *        the registration's NIC key (int64; 0 where the target pulls by Cross Memory Attach) and its address
 *        (int64), for an RDMA read).
 *  The header is 16 bytes, and only a Long carries a destination: on smp (records on 64-byte lines, a 16-byte record
 *  header) a Medium with no args carries up to 32 payload bytes in its record's first line, the line that holds the
 *  record's tag and that the reader polls; a second line costs a ping-pong 60-90 ns more in the VM's fast mode
 *  (testam, 1 December 2026, with the destination in every header: 24 payload bytes in the first line). A payload is
 *  at most {@link #MAX_PAYLOAD} bytes (4 GiB - 1).
 *  nonce: of a reassembled Long, the tag's nonce (credit slot and its generation), which the payload's remote write
 *        carries too; 0 otherwise.
 *  credit: on a request, the sender's credit slot this request holds (its reassembly nonce), + 1; 0 for none. On a
 *        reply, the slot of the request it answers, which the requester frees once the reply is handled, + 1.
 * </pre>
 * Integers are in the buffer's native (little-endian) order. Encoding is static so that any sending thread
 * writes in place; decoding uses a wrapped instance owned by the receiving thread.
 */
public final class AmFrameFlyweight {
    public static final byte VERSION = 4;
    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int HANDLER_OFFSET = 2;
    public static final int NARGS_OFFSET = 3;
    public static final int SOURCE_OFFSET = 4;
    public static final int LENGTH_OFFSET = 8;
    public static final int CREDIT_OFFSET = 12;
    public static final int NONCE_OFFSET = 14;
    public static final int ARGS_OFFSET = 16;
    public static final int HEADER_LENGTH = 16;
    public static final int MAX_ARGS = 16;
    /** The largest payload the 32-bit unsigned length field carries; every conduit's Long limit is at most this. */
    public static final long MAX_PAYLOAD = 0xFFFF_FFFFL;

    public static final int CATEGORY_SHORT = 0;
    public static final int CATEGORY_MEDIUM = 1;
    public static final int CATEGORY_LONG = 2;
    public static final int TYPE_CATEGORY_MASK = 3;
    public static final int TYPE_REQUEST = 4;
    public static final int TYPE_INLINE = 8;
    public static final int TYPE_REASSEMBLY = 16;
    public static final int TYPE_RENDEZVOUS = 32;
    /** Bytes a rendezvous Long's trailer adds to its frame. */
    public static final int RENDEZVOUS_TRAILER = 32;

    private DirectBuffer buffer;
    private int offset;
    private int length;

    /** Offset of a Long's destination relative to the frame start. */
    public static int destOffset(int nargs) {
        return (ARGS_OFFSET + 4 * nargs + 7) & ~7;
    }

    /** Offset of the payload relative to the frame start. */
    public static int payloadOffset(int category, int nargs) {
        return destOffset(nargs) + (category == CATEGORY_LONG ? Long.BYTES : 0);
    }

    /** Total frame length for a frame of {@code category} with {@code nargs} args and {@code inlinePayload} bytes. */
    public static int frameLength(int category, int nargs, int inlinePayload) {
        if (inlinePayload != 0 || category == CATEGORY_LONG) {
            return payloadOffset(category, nargs) + inlinePayload;
        }
        return ARGS_OFFSET + 4 * nargs;
    }

    /** Writes the header; {@code dest} only into a Long's (see the diagram). */
    public static void encodeHeader(MutableDirectBuffer b, int at, int type, int handler, int nargs,
                                    int source, long payloadLength, long dest) {
        b.putByte(at + VERSION_OFFSET, VERSION);
        b.putByte(at + TYPE_OFFSET, (byte) type);
        b.putByte(at + HANDLER_OFFSET, (byte) handler);
        b.putByte(at + NARGS_OFFSET, (byte) nargs);
        b.putInt(at + SOURCE_OFFSET, source);
        b.putInt(at + LENGTH_OFFSET, (int) payloadLength);
        b.putInt(at + CREDIT_OFFSET, 0); // credit and nonce
        if ((type & TYPE_CATEGORY_MASK) == CATEGORY_LONG) {
            b.putLong(at + destOffset(nargs), dest);
        }
    }

    /** Writes a rendezvous Long's trailer (see the diagram) after its header and args. */
    public static void encodeRendezvous(MutableDirectBuffer b, int at, int nargs, long offset, int handle,
                                        int operation, long key, long address) {
        final int trailer = at + payloadOffset(CATEGORY_LONG, nargs);
        b.putLong(trailer, offset);
        b.putInt(trailer + Long.BYTES, handle);
        b.putInt(trailer + Long.BYTES + Integer.BYTES, operation);
        b.putLong(trailer + 2 * Long.BYTES, key);
        b.putLong(trailer + 3 * Long.BYTES, address);
    }

    /** Stamps the nonce of a reassembled Long, the one its payload's tag carries. */
    public static void encodeNonce(MutableDirectBuffer b, int at, int nonce) {
        b.putShort(at + NONCE_OFFSET, (short) nonce);
    }

    /** Stamps the credit field: {@code slot} (-1 for none) of a request, or the slot a reply retires. */
    public static void encodeCredit(MutableDirectBuffer b, int at, int slot) {
        b.putShort(at + CREDIT_OFFSET, (short) (slot + 1));
    }

    public static void encodeArg(MutableDirectBuffer b, int at, int index, int value) {
        b.putInt(at + ARGS_OFFSET + 4 * index, value);
    }

    /**
     * What a handler's registration must match: category, request or reply, and nargs, in one int (a frame's is
     * {@link #signature()}), so that a receiver checks a frame against its handler with one compare.
     */
    public static int signature(int category, boolean request, int nargs) {
        return category | (request ? TYPE_REQUEST : 0) | nargs << 8;
    }

    /** This frame's {@link #signature(int, boolean, int)}. */
    public int signature() {
        return (buffer.getByte(offset + TYPE_OFFSET) & (TYPE_CATEGORY_MASK | TYPE_REQUEST))
            | (buffer.getByte(offset + NARGS_OFFSET) & 0xFF) << 8;
    }

    public AmFrameFlyweight wrap(DirectBuffer buffer, int offset, int length) {
        if (this.buffer != buffer) { // unchanged mostly: G1 fences a reference store (DESIGN section 12)
            this.buffer = buffer;
        }
        this.offset = offset;
        this.length = length;
        return this;
    }

    /**
     * @return null if the frame is well formed, else why not (for the dropped-frame report)
     */
    public String validate() {
        if (length < HEADER_LENGTH) {
            return "frame of " + length + " bytes is shorter than the " + HEADER_LENGTH + "-byte header";
        }
        if (version() != VERSION) {
            return "frame version " + version() + " is not " + VERSION;
        }
        final int category = category();
        if (category > CATEGORY_LONG) {
            return "frame category " + category + " is not 0..2";
        }
        final int nargs = nargs();
        if (nargs > MAX_ARGS) {
            return "frame has " + nargs + " args, more than " + MAX_ARGS;
        }
        final long payload = payloadLength();
        if (isReassembly() && (category != CATEGORY_LONG || isInline() || credit() < 0)) {
            return "reassembly flag on a frame that is not a Long with its payload apart and a credit slot";
        }
        if (isRendezvous()) {
            if (category != CATEGORY_LONG || !isRequest() || isInline() || isReassembly()) {
                return "rendezvous flag on a frame that is not a Long request with its payload apart";
            }
            if (frameLength(CATEGORY_LONG, nargs, RENDEZVOUS_TRAILER) > length) {
                return "rendezvous frame of " + length + " bytes is shorter than its header, args and trailer";
            }
        }
        final boolean inline = category == CATEGORY_MEDIUM || (category == CATEGORY_LONG && isInline());
        final long needed = inline && payload > 0 ? payloadOffset(category, nargs) + payload
            : frameLength(category, nargs, 0);
        if (category == CATEGORY_SHORT && payload != 0) {
            return "Short frame with payload length " + payload;
        }
        if (needed > length) {
            return "frame of " + length + " bytes is shorter than its " + needed + " bytes of args and payload";
        }
        return null;
    }

    public DirectBuffer buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    public int version() {
        return buffer.getByte(offset + VERSION_OFFSET);
    }

    public int type() {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xff;
    }

    public int category() {
        return type() & TYPE_CATEGORY_MASK;
    }

    public boolean isRequest() {
        return (type() & TYPE_REQUEST) != 0;
    }

    public boolean isInline() {
        return (type() & TYPE_INLINE) != 0;
    }

    public boolean isReassembly() {
        return (type() & TYPE_REASSEMBLY) != 0;
    }

    public boolean isRendezvous() {
        return (type() & TYPE_RENDEZVOUS) != 0;
    }

    /** A rendezvous Long's offset in the sender's registration. */
    public long rendezvousOffset() {
        return buffer.getLong(payloadIndex());
    }

    /** A rendezvous Long's registration handle at the sender. */
    public int rendezvousHandle() {
        return buffer.getInt(payloadIndex() + Long.BYTES);
    }

    /** A rendezvous Long's operation at the sender, which the target's answer names. */
    public int rendezvousOperation() {
        return buffer.getInt(payloadIndex() + Long.BYTES + Integer.BYTES);
    }

    /** A rendezvous Long's registration NIC key at the sender (0 where it has none). */
    public long rendezvousKey() {
        return buffer.getLong(payloadIndex() + 2 * Long.BYTES);
    }

    /** A rendezvous Long's registration address at the sender. */
    public long rendezvousAddress() {
        return buffer.getLong(payloadIndex() + 3 * Long.BYTES);
    }

    /** The reassembly nonce (see the diagram). */
    public int nonce() {
        return buffer.getShort(offset + NONCE_OFFSET) & 0xffff;
    }

    /** The credit slot the frame carries (see the diagram), or -1 for none. */
    public int credit() {
        return (buffer.getShort(offset + CREDIT_OFFSET) & 0xffff) - 1;
    }

    public int handler() {
        return buffer.getByte(offset + HANDLER_OFFSET) & 0xff;
    }

    public int nargs() {
        return buffer.getByte(offset + NARGS_OFFSET) & 0xff;
    }

    public int source() {
        return buffer.getInt(offset + SOURCE_OFFSET);
    }

    public long payloadLength() {
        return buffer.getInt(offset + LENGTH_OFFSET) & 0xFFFF_FFFFL;
    }

    /** A Long's destination offset; only a Long frame carries one. */
    public long dest() {
        return buffer.getLong(offset + destOffset(nargs()));
    }

    public int arg(int index) {
        return buffer.getInt(offset + ARGS_OFFSET + 4 * index);
    }

    /** Absolute offset of the inline payload in {@link #buffer()}. */
    public int payloadIndex() {
        return offset + payloadOffset(category(), nargs());
    }
}
