package org.gexj.ofi.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The blob the ofi conduit exchanges through the bootstrap's allgather when it opens: its endpoint's name (the
 * segment's blob, at the attach, is the RDMA engine's {@code RdmaSegmentCodec}).
 * <pre>
 *  endpoint blob: | version:8 | provider name length:16 | provider name (UTF-8) | name length:32 | name bytes |
 * </pre>
 * The provider name is in the endpoint blob so that a job whose ranks chose different providers fails at once,
 * naming both, instead of sending to addresses it cannot parse.
 */
public final class OfiAddressCodec {
    public static final byte VERSION = 1;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private OfiAddressCodec() {
    }

    /** One rank's endpoint. */
    public record Endpoint(String provider, byte[] name) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Endpoint e && e.provider.equals(provider) && Arrays.equals(e.name, name);
        }

        @Override
        public int hashCode() {
            return provider.hashCode() * 31 + Arrays.hashCode(name);
        }

        @Override
        public String toString() {
            return provider + " endpoint of " + name.length + " bytes";
        }
    }

    public static byte[] encode(Endpoint e) {
        final byte[] provider = e.provider().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (provider.length > 0xFFFF) {
            throw new IllegalArgumentException("provider name of " + provider.length + " UTF-8 bytes: at most 65535");
        }
        return ByteBuffer.allocate(1 + 2 + provider.length + 4 + e.name().length).order(ORDER).put(VERSION)
            .putShort((short) provider.length).put(provider).putInt(e.name().length).put(e.name()).array();
    }

    /** @throws IllegalArgumentException naming what is wrong with the blob of {@code rank} */
    public static Endpoint decodeEndpoint(byte[] blob, int rank) {
        try {
            final ByteBuffer b = ByteBuffer.wrap(blob).order(ORDER);
            checkVersion(b.get(), rank);
            final byte[] provider = new byte[Short.toUnsignedInt(b.getShort())];
            b.get(provider);
            final int length = b.getInt();
            if (length < 0 || length != b.remaining()) {
                throw new IllegalArgumentException("rank " + rank + "'s endpoint name length " + length + " does not"
                    + " match the " + b.remaining() + " bytes that follow");
            }
            final byte[] name = new byte[length];
            b.get(name);
            return new Endpoint(new String(provider, java.nio.charset.StandardCharsets.UTF_8), name);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("rank " + rank + "'s endpoint blob of " + blob.length
                + " bytes is truncated");
        }
    }

    private static void checkVersion(byte version, int rank) {
        if (version != VERSION) {
            throw new IllegalArgumentException("rank " + rank + " sent an ofi address blob of version " + version
                + ", this rank speaks " + VERSION);
        }
    }
}
