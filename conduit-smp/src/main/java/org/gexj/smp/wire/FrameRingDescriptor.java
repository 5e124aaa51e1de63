package org.gexj.smp.wire;

/**
 * Layout of a {@code FrameRing}: many producers (any thread of any rank on the host), one consumer (the owning rank),
 * in a mapped file.
 * <pre>
 *   [records: capacity bytes, a power of two][trailer: TRAILER_LENGTH bytes]
 *
 *   record, at a multiple of ALIGNMENT (a cache line):
 *   0               4               8                                              16
 *  +---------------+---------------+-----------------------------------------------+
 *  | length:int32  | type:int32    | tag:int64 = tag(position, salt), written last  |
 *  +---------------+---------------+-----------------------------------------------+
 *  | frame (length - HEADER_LENGTH bytes), then padding to ALIGNMENT                |
 *  +--------------------------------------------------------------------------------+
 *   length counts the header and the frame, not the padding; type FRAME or PADDING (skipped: an aborted claim, or
 *   the rest of the buffer before a record that wraps to the start).
 *
 *   trailer, each counter alone on a pair of cache lines (no false sharing, nor adjacent-line prefetch):
 *   TAIL_OFFSET        int64  bytes claimed since the start (producers' compare-and-set)
 *   HEAD_CACHE_OFFSET  int64  a recent value of the head, shared by producers so they seldom read the consumer's line
 *   HEAD_OFFSET        int64  bytes consumed since the start (consumer only, release stores)
 *   SALT_OFFSET        int64  random, with the top bit set, written by the owner before any peer maps the ring
 * </pre>
 *
 * <p>Why a tag and not Agrona's zeroing: a ring whose consumer zeroes every record it consumed makes that consumer
 * the last writer of every byte a producer writes next, so each payload line crosses between the cores once more
 * than it must (measured: +0.4 µs on a 1 KiB Medium round trip). Here the consumer writes nothing but its head. A
 * record is committed when the 8 bytes at its tag offset equal {@link #tag} of the absolute position the consumer
 * expects there. What an earlier lap left at those bytes is an earlier tag, payload, or, where a frame ended inside
 * them, payload in the low bytes and an earlier lap's tag in the high ones. The tag multiplies by an odd constant, so
 * positions that differ by whole laps differ in the high bytes as much as in the low ones: a plain
 * {@code position ^ salt} differs only in the low bytes between nearby laps, and a frame whose last two bytes happened
 * to equal the next lap's low tag bytes made an uncommitted record look committed (a property test found it).
 * Now a false match needs the payload bytes to equal salted values no producer knows, and each stale byte to agree
 * by chance (about 1 in 256 each). Lap-0 memory is zero, which no tag equals: {@code position ^ salt} is never zero
 * (the salt's top bit is set and positions stay below 2^62) and the multiplication is a bijection.
 */
public final class FrameRingDescriptor {
    /** Records start at multiples of a cache line: a frame of up to 48 bytes is one line, read in one transfer. */
    public static final int ALIGNMENT = 64;
    public static final int HEADER_LENGTH = 16;
    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;
    public static final int TAG_OFFSET = 8;

    public static final int FRAME = 1;
    public static final int PADDING = -1;

    private static final int COUNTER_STRIDE = 128;
    public static final int TAIL_OFFSET = 0;
    public static final int HEAD_CACHE_OFFSET = COUNTER_STRIDE;
    public static final int HEAD_OFFSET = 2 * COUNTER_STRIDE;
    public static final int SALT_OFFSET = 3 * COUNTER_STRIDE;
    public static final int TRAILER_LENGTH = 4 * COUNTER_STRIDE;

    /** Odd, so multiplying by it is a bijection; the golden ratio's bits spread multiples of a lap over all bytes. */
    private static final long TAG_MULTIPLIER = 0x9E3779B97F4A7C15L;

    private FrameRingDescriptor() {
    }

    /** The tag a record committed at absolute {@code position} carries. */
    public static long tag(long position, long salt) {
        return (position ^ salt) * TAG_MULTIPLIER;
    }

    /** Bytes a record of {@code length} (header included) occupies. */
    public static int aligned(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * @throws IllegalArgumentException if {@code capacity} is not a power of two of at least 2 * {@link #ALIGNMENT}
     */
    public static void checkCapacity(int capacity) {
        if (capacity < 2 * ALIGNMENT || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity " + capacity + " is not a power of two >= "
                + 2 * ALIGNMENT);
        }
    }
}
