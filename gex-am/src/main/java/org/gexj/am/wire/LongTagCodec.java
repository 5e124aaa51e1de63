package org.gexj.am.wire;

/**
 * The tag an AM Long payload write carries in its completion's immediate data (verbs {@code imm_data}, 32 bits;
 * libfabric remote CQ data, 64 bits), so that the target can match the payload with its envelope
 * (target-side reassembly).
 * <pre>
 *  W = 32 (ibv imm_data) or 64 (ofi CQ data); N = slotBits; S = W - 2 - N source-rank bits
 *
 *   W-1  W-2  W-3             S  S-1                              0
 *  +----+----+-----------------+----------------------------------+
 *  |kind|dir |  slot: N bits   |      source rank: S bits         |
 *  +----+----+-----------------+----------------------------------+
 *  kind: 1 = AM Long payload; 0 = any other user of remote-write immediates, whose remaining bits are theirs
 *  dir:  0 = request ({@link #DIRECTION_REQUEST}), 1 = reply ({@link #DIRECTION_REPLY})
 *  slot: the nonce, the index of the requester's credit slot toward the other rank
 *  source rank: the rank that wrote the payload
 * </pre>
 * The tag is a host-order integer: the verbs conduit byte-swaps {@code imm_data}, which is big-endian on the wire.
 * A 32-bit tag is held in the low 32 bits of a {@code long}, and only those bits are read, so the conduit may pass
 * {@code imm_data} sign-extended or not.
 *
 * <p>Why a direction bit: a Long reply carries the slot of the request it answers, a slot of the <em>receiver's</em>
 * credit pool toward the replier, while a request from that same peer carries a slot of the <em>peer's</em> pool.
 * Without the bit, (peer, slot 3) could name two messages in flight at once.
 *
 * <p>No version field, unlike the other wire formats: 32 bits leave no room for one. Both ends derive the layout from
 * the same (immediate bits, slot bits) configuration, and the kind bit keeps other immediate users apart.
 * The slot field is exactly {@code slotBits} wide, so every decoded slot is below {@link #slots()}; the credit
 * allocator must therefore have exactly {@code slots()} slots per peer.
 *
 * <p>Immutable and thread-safe; encoding and decoding allocate nothing.
 */
public final class LongTagCodec {
    public static final int KIND_OTHER = 0;
    public static final int KIND_AM_LONG = 1;
    public static final int DIRECTION_REQUEST = 0;
    public static final int DIRECTION_REPLY = 1;
    public static final int MAX_SLOT_BITS = 16;

    private final int immediateBits;
    private final int slotBits;
    private final int sourceBits;
    private final long immediateMask;
    private final long sourceMask;
    private final int slotMask;
    private final int maxRanks;

    /**
     * @param immediateBits 32 (verbs imm_data) or 64 (libfabric CQ data)
     * @param slotBits      width of the slot (nonce) field, 0..{@value #MAX_SLOT_BITS}: {@code 1 << slotBits} slots
     * @throws IllegalArgumentException naming the value and the allowed range
     */
    public LongTagCodec(int immediateBits, int slotBits) {
        if (immediateBits != 32 && immediateBits != 64) {
            throw new IllegalArgumentException("immediate data of " + immediateBits + " bits: must be 32 or 64");
        }
        if (slotBits < 0 || slotBits > MAX_SLOT_BITS) {
            throw new IllegalArgumentException(slotBits + " slot bits: must be 0.." + MAX_SLOT_BITS);
        }
        this.immediateBits = immediateBits;
        this.slotBits = slotBits;
        this.sourceBits = immediateBits - 2 - slotBits;
        this.immediateMask = immediateBits == 64 ? -1L : (1L << immediateBits) - 1;
        this.sourceMask = (1L << sourceBits) - 1;
        this.slotMask = (1 << slotBits) - 1;
        // ranks are ints: a source field of 31 bits or more names every rank a job can have
        this.maxRanks = sourceBits >= 31 ? Integer.MAX_VALUE : 1 << sourceBits;
    }

    public int immediateBits() {
        return immediateBits;
    }

    public int slotBits() {
        return slotBits;
    }

    /** Slots per peer the slot field can name: {@code 1 << slotBits}. */
    public int slots() {
        return 1 << slotBits;
    }

    /**
     * Largest job size whose every rank fits the source field ({@code Integer.MAX_VALUE} when it is 31 bits or more).
     */
    public int maxRanks() {
        return maxRanks;
    }

    /**
     * Checks at initialization that every rank of the job can be named in a tag.
     *
     * @return {@code jobSize}
     * @throws IllegalArgumentException if the job is larger than {@link #maxRanks()}
     */
    public int checkJobSize(int jobSize) {
        if (jobSize < 1 || jobSize > maxRanks) {
            throw new IllegalArgumentException("job of " + jobSize + " ranks: a " + immediateBits + "-bit tag with "
                + slotBits + " slot bits names 1.." + maxRanks + " ranks");
        }
        return jobSize;
    }

    /**
     * @return the tag of an AM Long payload, in the low {@link #immediateBits()} bits (upper bits 0 for 32)
     * @throws IllegalArgumentException if a field is out of its range (a bug of the caller)
     */
    public long encode(int direction, int slot, int source) {
        if (direction != DIRECTION_REQUEST && direction != DIRECTION_REPLY) {
            throw new IllegalArgumentException("direction " + direction + ": must be 0 (request) or 1 (reply)");
        }
        if (slot < 0 || slot > slotMask) {
            throw new IllegalArgumentException("slot " + slot + ": must be 0.." + slotMask);
        }
        if (source < 0 || source >= maxRanks) {
            throw new IllegalArgumentException("source rank " + source + ": must be 0.." + (maxRanks - 1));
        }
        return (long) KIND_AM_LONG << (immediateBits - 1)
            | (long) direction << (immediateBits - 2)
            | (long) slot << sourceBits
            | source;
    }

    /** {@link #KIND_AM_LONG} or {@link #KIND_OTHER}. */
    public int kind(long tag) {
        return (int) ((tag & immediateMask) >>> (immediateBits - 1));
    }

    /** {@link #DIRECTION_REQUEST} or {@link #DIRECTION_REPLY}; meaningful for an AM Long tag only. */
    public int direction(long tag) {
        return (int) (tag >>> (immediateBits - 2)) & 1;
    }

    /** The slot (nonce), always below {@link #slots()}; meaningful for an AM Long tag only. */
    public int slot(long tag) {
        return (int) (tag >>> sourceBits) & slotMask;
    }

    /**
     * The source rank; meaningful for a tag that {@link #isValid(long, int)} accepted (a 64-bit source field can hold
     * values beyond any {@code int} rank, which this would truncate).
     */
    public int source(long tag) {
        return (int) (tag & sourceMask);
    }

    /**
     * Whether a completion's immediate data is an AM Long tag from a rank of this job. A tag it rejects is reported
     * and dropped by the caller; a tag it accepts decodes to a slot below {@link #slots()} (see the class comment).
     *
     * @return false for {@link #KIND_OTHER} or a source rank {@code >= jobSize}
     */
    public boolean isValid(long tag, int jobSize) {
        return kind(tag) == KIND_AM_LONG && (tag & sourceMask) < jobSize;
    }
}
