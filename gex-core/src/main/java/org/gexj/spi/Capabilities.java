package org.gexj.spi;

/**
 * What a conduit can do, as data: the AM and RMA layers choose protocols and fallbacks from this record and never
 * test the conduit's class. Built with {@link #builder(String)}.
 *
 * @param conduit                 short conduit name, e.g. {@code smp}
 * @param maxFrameLength          largest frame {@link Conduit#claim} accepts (header, args and inline payload)
 * @param maxMediumRequest        largest Medium request payload the conduit carries in one piece: the AM layer's
 *                                default Medium limit, which {@code GEX_AM_MAX_MEDIUM} may raise up to what
 *                                {@code maxFrameLength} holds
 * @param maxMediumReply          the same for Medium replies
 * @param maxLongRequest          largest Long request payload
 * @param maxLongReply            largest Long reply payload
 * @param maxPackedLong           largest Long payload that may travel inside the envelope frame
 * @param packedLongDefault       largest Long payload that travels packed by default where larger ones go by RMA
 *                                ({@code GEX_AMLONG_PACKED_MAX}'s default): up to it, one message beats a write and
 *                                an envelope on this conduit. At most {@code maxPackedLong}; the builder's default is
 *                                4096 (or {@code maxPackedLong} if smaller)
 * @param immediateBits           bits of immediate data a remote write carries to the target: 0 (none), 32 (verbs
 *                                {@code imm_data}) or 64 (libfabric CQ data)
 * @param crossMapped             peers' segments are mapped into this process ({@link Conduit#peerSegment}), so
 *                                RMA and AM Long payloads are memory copies
 * @param nativeRma               {@link Conduit#rma()} moves data itself; without it (and without cross-mapping)
 *                                RMA goes over AM
 * @param deferredLocalCompletion a put's source may still be read after the call returns, until its completion
 * @param conduitBarrier          the conduit has its own barrier ({@link Conduit#barrierNotify}); otherwise the
 *                                core runs a dissemination barrier over AM frames
 * @param orderedChannels         frames from one sender to one target on one channel arrive in the order they were
 *                                committed. No layer relies on it (the AM layer works with either); the conformance
 *                                kits read it to know how long a check that nothing arrived must wait (see the
 *                                testkit's {@code ConduitKit.Marker})
 */
public record Capabilities(String conduit, int maxFrameLength, long maxMediumRequest, long maxMediumReply,
                           long maxLongRequest, long maxLongReply, long maxPackedLong, long packedLongDefault,
                           int immediateBits,
                           boolean crossMapped, boolean nativeRma, boolean deferredLocalCompletion,
                           boolean conduitBarrier, boolean orderedChannels) {
    public Capabilities {
        if (conduit == null || conduit.isBlank()) {
            throw new IllegalArgumentException("conduit name is missing");
        }
        if (maxFrameLength < 1024) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength + " must be >= 1024");
        }
        if (immediateBits != 0 && immediateBits != 32 && immediateBits != 64) {
            throw new IllegalArgumentException("immediateBits " + immediateBits + " is not 0, 32 or 64");
        }
        if (immediateBits != 0 && !nativeRma) {
            throw new IllegalArgumentException("immediateBits " + immediateBits + " without native RMA");
        }
        for (long limit : new long[] {maxMediumRequest, maxMediumReply, maxLongRequest, maxLongReply, maxPackedLong}) {
            if (limit < 0) {
                throw new IllegalArgumentException(conduit + ": a payload limit is negative: " + limit);
            }
        }
        if (packedLongDefault < 0 || packedLongDefault > maxPackedLong) {
            throw new IllegalArgumentException(conduit + ": packedLongDefault " + packedLongDefault + " outside [0, "
                + maxPackedLong + "] (maxPackedLong)");
        }
    }

    /** A builder with no native RMA, no immediates, no cross-mapping, no barrier, unordered channels. */
    public static Builder builder(String conduit) {
        return new Builder(conduit);
    }

    /** Fluent construction: names instead of thirteen positional arguments. */
    public static final class Builder {
        private final String conduit;
        private int maxFrameLength;
        private long maxMediumRequest;
        private long maxMediumReply;
        private long maxLongRequest;
        private long maxLongReply;
        private long maxPackedLong;
        /** Unset: {@link #build} takes 4096, or {@code maxPackedLong} if smaller. */
        private long packedLongDefault = -1;
        private int immediateBits;
        private boolean crossMapped;
        private boolean nativeRma;
        private boolean deferredLocalCompletion;
        private boolean conduitBarrier;
        private boolean orderedChannels;

        private Builder(String conduit) {
            this.conduit = conduit;
        }

        /** The largest frame {@link Conduit#claim} accepts. */
        public Builder maxFrameLength(int v) {
            maxFrameLength = v;
            return this;
        }

        /** The Medium payloads the conduit carries in one piece: the AM layer's default Medium limits. */
        public Builder maxMedium(long request, long reply) {
            maxMediumRequest = request;
            maxMediumReply = reply;
            return this;
        }

        public Builder maxLong(long request, long reply) {
            maxLongRequest = request;
            maxLongReply = reply;
            return this;
        }

        public Builder maxPackedLong(long v) {
            maxPackedLong = v;
            return this;
        }

        /** GEX_AMLONG_PACKED_MAX's default where Longs above it go by RMA (see the record's parameter). */
        public Builder packedLongDefault(long v) {
            packedLongDefault = v;
            return this;
        }

        public Builder immediateBits(int v) {
            immediateBits = v;
            return this;
        }

        public Builder crossMapped(boolean v) {
            crossMapped = v;
            return this;
        }

        public Builder nativeRma(boolean v) {
            nativeRma = v;
            return this;
        }

        public Builder deferredLocalCompletion(boolean v) {
            deferredLocalCompletion = v;
            return this;
        }

        public Builder conduitBarrier(boolean v) {
            conduitBarrier = v;
            return this;
        }

        public Builder orderedChannels(boolean v) {
            orderedChannels = v;
            return this;
        }

        public Capabilities build() {
            return new Capabilities(conduit, maxFrameLength, maxMediumRequest, maxMediumReply, maxLongRequest,
                maxLongReply, maxPackedLong, packedLongDefault < 0 ? Math.min(maxPackedLong, 4096) : packedLongDefault,
                immediateBits, crossMapped, nativeRma, deferredLocalCompletion,
                conduitBarrier, orderedChannels);
        }
    }
}
