package org.gexj.rma.wire;

/**
 * The tag a put with completion's data write carries in its immediate (verbs {@code imm_data}, libfabric remote CQ
 * data), so that the target counts it against the operation's header (Photon's 2-put PWC, the immediate marking what
 * arrived).
 * <pre>
 *  W = the conduit's immediate bits (32 or 64); S = the bits of the job's largest rank; N = W - 2 - S slot bits
 *
 *   W-1  W-2  W-3             S  S-1                              0
 *  +----+----+-----------------+----------------------------------+
 *  | 0  | 1  |  slot: N bits   |      source rank: S bits         |
 *  +----+----+-----------------+----------------------------------+
 *  bit W-1: 0, not an AM Long payload (the AM layer's kind bit, which routes the write here)
 *  bit W-2: 1, a put with completion's data (0 is left for other users)
 *  slot:   the initiator's operation slot, which its header names too
 *  source: the initiator's rank (verbs reports no rank with a write)
 * </pre>
 * The layout follows from the immediate bits and the job's size alone, which every rank shares; a rank whose operation
 * slots ({@code GEX_PWC_OPS}) do not fit the slot field sends its puts without immediates ({@link #fitsSlots}).
 *
 * <p>Immutable; encoding and decoding allocate nothing.
 */
public final class PwcTagCodec {
    private final int immediateBits;
    private final int slotBits;
    private final int sourceBits;
    private final long mark;
    private final long markMask;

    /**
     * @param immediateBits the conduit's immediate bits, 32 or 64
     * @param ranks         the job's size, at least 1
     * @throws IllegalArgumentException naming the value and its range
     */
    public PwcTagCodec(int immediateBits, int ranks) {
        if (immediateBits != 32 && immediateBits != 64) {
            throw new IllegalArgumentException("immediate data of " + immediateBits + " bits: must be 32 or 64");
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("a job of " + ranks + " ranks: must be at least 1");
        }
        this.immediateBits = immediateBits;
        this.sourceBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(ranks - 1));
        this.slotBits = Math.min(31, immediateBits - 2 - sourceBits);
        this.mark = 1L << (immediateBits - 2);
        this.markMask = 3L << (immediateBits - 2);
    }

    /** Whether operation slots {@code [0, slots)} fit the slot field (else this rank's puts go without immediates). */
    public boolean fitsSlots(int slots) {
        return slotBits >= 31 || slots <= 1 << slotBits;
    }

    /** The tag of slot {@code slot}'s data from {@code source}; both in range (see {@link #fitsSlots}). */
    public long encode(int slot, int source) {
        return mark | (long) slot << sourceBits | source;
    }

    /** Whether {@code tag} (its low {@code immediateBits} bits) is a put with completion's. */
    public boolean isPwc(long tag) {
        return (tag & markMask) == mark;
    }

    public int slot(long tag) {
        return (int) (tag >>> sourceBits) & ((1 << slotBits) - 1);
    }

    public int source(long tag) {
        return (int) (tag & ((1L << sourceBits) - 1));
    }

    public int immediateBits() {
        return immediateBits;
    }
}
