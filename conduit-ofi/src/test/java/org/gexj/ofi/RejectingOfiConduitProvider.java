package org.gexj.ofi;

import org.gexj.spi.AttachedSegments;
import org.gexj.spi.Capabilities;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitContext;
import org.gexj.spi.ConduitListener;
import org.gexj.spi.ConduitProvider;
import org.gexj.spi.RmaTransport;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * For tests ({@code GEX_CONDUIT=ofi-rejecting}): the ofi conduit, except that its RMA transport rejects every
 * operation of {@link #REJECTED} bytes with an {@link IllegalArgumentException}, as a conduit rejects what it cannot
 * do, after the layers above took their slots, events and claims for it.
 */
public final class RejectingOfiConduitProvider implements ConduitProvider {
    /** The length of a put, get or AM Long payload the transport rejects. */
    static final long REJECTED = 70_001;

    @Override
    public String name() {
        return "ofi-rejecting";
    }

    @Override
    public boolean isAvailable() {
        return Ofi.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ofi.unavailabilityCause();
    }

    @Override
    public Conduit open(ConduitContext context) {
        return new Rejecting(OfiConduit.open(context));
    }

    private static void check(long nbytes) {
        if (nbytes == REJECTED) {
            throw new IllegalArgumentException("ofi-rejecting refuses RMA of " + REJECTED + " bytes");
        }
    }

    private static final class Rejecting implements Conduit {
        private final OfiConduit ofi;
        private final RmaTransport rma;

        Rejecting(OfiConduit ofi) {
            this.ofi = ofi;
            final RmaTransport inner = ofi.rma();
            this.rma = new RmaTransport() {
                @Override
                public int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes,
                               long operation) {
                    check(nbytes);
                    return inner.put(peer, remoteOffset, src, srcOffset, nbytes, operation);
                }

                @Override
                public int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes,
                               long operation) {
                    check(nbytes);
                    return inner.get(dst, dstOffset, peer, remoteOffset, nbytes, operation);
                }

                @Override
                public int putWithImmediate(int peer, long remoteOffset, MemorySegment src, long srcOffset,
                                            long nbytes, long immediate, long operation) {
                    check(nbytes);
                    return inner.putWithImmediate(peer, remoteOffset, src, srcOffset, nbytes, immediate, operation);
                }
            };
        }

        @Override
        public Capabilities capabilities() {
            return ofi.capabilities();
        }

        @Override
        public int claim(Claim claim, int target, int channel, int length) {
            return ofi.claim(claim, target, channel, length);
        }

        @Override
        public void commit(Claim claim) {
            ofi.commit(claim);
        }

        @Override
        public void abort(Claim claim) {
            ofi.abort(claim);
        }

        @Override
        public int poll(ConduitListener listener, int channelMask, int limit) {
            return ofi.poll(listener, channelMask, limit);
        }

        @Override
        public boolean mayDeliver(int channelMask) {
            return ofi.mayDeliver(channelMask);
        }

        @Override
        public AttachedSegments attachSegment(long size) {
            return ofi.attachSegment(size);
        }

        @Override
        public RmaTransport rma() {
            return rma;
        }

        @Override
        public Map<String, Long> counters() {
            return ofi.counters();
        }

        @Override
        public void close() {
            ofi.close();
        }
    }
}
