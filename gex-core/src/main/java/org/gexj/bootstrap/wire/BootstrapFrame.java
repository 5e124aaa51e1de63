package org.gexj.bootstrap.wire;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A frame of the bootstrap protocol between a rank and the launcher's rendezvous (TCP, control path only).
 * <pre>
 *   0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |    version    |     type      |           reserved            |
 *  +---------------+---------------+---------------+---------------+
 *  |                         body length                           |
 *  +---------------------------------------------------------------+
 *  |                         body ...                              |
 *
 *  CHALLENGE  server → rank   body: nonce (32 bytes)
 *  HELLO      rank → server   body: rank:int32 | HMAC-SHA256(secret, nonce | rank):32 bytes
 *  WELCOME    server → rank   body: empty (authenticated)
 *  ALLGATHER  rank → server   body: sequence:int32 | blob
 *  RESULT     server → rank   body: sequence:int32 | count:int32 | (length:int32 | blob) * count
 *  BYE        rank → server   body: empty (normal end)
 *  ABORT      both ways       body: rank:int32 | reason (UTF-8)
 *  EXIT       both ways       body: rank:int32 | code:int32 (the rank called exit(code): the job ends with code)
 *  CLOSED     server → rank   body: rank:int32 (that rank said BYE: it will take part in nothing more)
 * </pre>
 * Integers are big-endian.
 */
public record BootstrapFrame(int type, byte[] body) {
    public static final int VERSION = 1;
    public static final int CHALLENGE = 1;
    public static final int HELLO = 2;
    public static final int WELCOME = 3;
    public static final int ALLGATHER = 4;
    public static final int RESULT = 5;
    public static final int BYE = 6;
    public static final int ABORT = 7;
    public static final int EXIT = 8;
    public static final int CLOSED = 9;
    /** Bodies are small blobs (addresses, keys); this bounds what a bad peer can make us allocate. */
    public static final int MAX_BODY = 64 << 20;

    public BootstrapFrame {
        if (type < CHALLENGE || type > CLOSED) {
            throw new IllegalArgumentException("bootstrap frame type " + type + " outside [1, 9]");
        }
    }

    public void write(DataOutputStream out) throws IOException {
        out.writeByte(VERSION);
        out.writeByte(type);
        out.writeShort(0);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /** Largest body before a peer has proven the job secret: a HELLO is a rank and a MAC. */
    public static final int MAX_UNAUTHENTICATED_BODY = 4096;

    /**
     * @throws IOException on end of stream, a wrong version, an unknown type or an oversized body
     */
    public static BootstrapFrame read(DataInputStream in) throws IOException {
        return read(in, MAX_BODY);
    }

    /**
     * Reads a frame whose body may not exceed {@code maxBody} (use {@link #MAX_UNAUTHENTICATED_BODY} until the
     * peer is authenticated, so a stranger cannot make the launcher allocate 64 MiB).
     */
    public static BootstrapFrame read(DataInputStream in, int maxBody) throws IOException {
        final int version = in.readUnsignedByte();
        if (version != VERSION) {
            throw new IOException("bootstrap frame version " + version + ", expected " + VERSION);
        }
        final int type = in.readUnsignedByte();
        in.readUnsignedShort();
        final int length = in.readInt();
        if (length < 0 || length > maxBody) {
            throw new IOException("bootstrap frame body length " + length + " outside [0, " + maxBody + "]");
        }
        if (type < CHALLENGE || type > CLOSED) {
            throw new IOException("bootstrap frame type " + type + " outside [1, 9]");
        }
        final byte[] body = new byte[length];
        in.readFully(body);
        return new BootstrapFrame(type, body);
    }

    public static BootstrapFrame allgather(int sequence, byte[] blob) {
        return new BootstrapFrame(ALLGATHER, ByteBuffer.allocate(4 + blob.length).putInt(sequence).put(blob).array());
    }

    public static BootstrapFrame result(int sequence, byte[][] blobs) {
        int length = 8;
        for (byte[] b : blobs) {
            length += 4 + b.length;
        }
        final ByteBuffer buf = ByteBuffer.allocate(length).putInt(sequence).putInt(blobs.length);
        for (byte[] b : blobs) {
            buf.putInt(b.length).put(b);
        }
        return new BootstrapFrame(RESULT, buf.array());
    }

    public static BootstrapFrame abort(int rank, String reason) {
        final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return new BootstrapFrame(ABORT, ByteBuffer.allocate(4 + text.length).putInt(rank).put(text).array());
    }

    public static BootstrapFrame exit(int rank, int code) {
        return new BootstrapFrame(EXIT, ByteBuffer.allocate(8).putInt(rank).putInt(code).array());
    }

    /** The code of an EXIT frame. */
    public int exitCode() throws IOException {
        if (type != EXIT || body.length != 8) {
            throw new IOException("bootstrap frame type " + type + " with " + body.length + " bytes is no EXIT frame");
        }
        return ByteBuffer.wrap(body).getInt(4);
    }

    public static BootstrapFrame closed(int rank) {
        return new BootstrapFrame(CLOSED, ByteBuffer.allocate(4).putInt(rank).array());
    }

    public static BootstrapFrame hello(int rank, byte[] mac) {
        return new BootstrapFrame(HELLO, ByteBuffer.allocate(4 + mac.length).putInt(rank).put(mac).array());
    }

    /** Leading int32 of the body: the sequence (ALLGATHER, RESULT) or the rank (HELLO, ABORT, EXIT, CLOSED). */
    public int leadingInt() throws IOException {
        if (body.length < 4) {
            throw new IOException("bootstrap frame type " + type + " body of " + body.length + " bytes lacks its int");
        }
        return ByteBuffer.wrap(body).getInt();
    }

    /** Body after the leading int32. */
    public byte[] rest() {
        final byte[] r = new byte[Math.max(0, body.length - 4)];
        System.arraycopy(body, Math.min(4, body.length), r, 0, r.length);
        return r;
    }

    /** The blobs of a RESULT frame. */
    public byte[][] blobs() throws IOException {
        try {
            final ByteBuffer buf = ByteBuffer.wrap(body);
            buf.getInt();
            final int count = buf.getInt();
            if (count < 0 || count > buf.remaining() / 4) {
                throw new IOException("RESULT frame with " + count + " blobs in " + body.length + " bytes");
            }
            final byte[][] blobs = new byte[count][];
            for (int i = 0; i < count; i++) {
                final int n = buf.getInt();
                if (n < 0 || n > buf.remaining()) {
                    throw new IOException("RESULT blob " + i + " of " + n + " bytes overruns the frame");
                }
                blobs[i] = new byte[n];
                buf.get(blobs[i]);
            }
            return blobs;
        } catch (java.nio.BufferUnderflowException e) {
            throw new IOException("truncated RESULT frame of " + body.length + " bytes", e);
        }
    }

    public String reason() {
        return new String(rest(), StandardCharsets.UTF_8);
    }
}
