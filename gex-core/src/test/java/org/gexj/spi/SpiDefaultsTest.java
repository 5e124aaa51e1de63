package org.gexj.spi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SPI's optional operations: a conduit that does not implement one gets a default that either returns what the
 * contract allows or throws {@link UnsupportedOperationException} naming the conduit and the capability it lacks.
 */
class SpiDefaultsTest {
    /** A conduit that implements only what every conduit must. */
    private static final class Minimal implements Conduit {
        private final Capabilities capabilities = Capabilities.builder("minimal").maxFrameLength(1024).build();

        @Override
        public Capabilities capabilities() {
            return capabilities;
        }

        @Override
        public int claim(Claim claim, int target, int channel, int length) {
            return NO_ROOM;
        }

        @Override
        public void commit(Claim claim) {
        }

        @Override
        public void abort(Claim claim) {
        }

        @Override
        public int poll(ConduitListener listener, int channelMask, int limit) {
            return 0;
        }

        @Override
        public AttachedSegments attachSegment(long size) {
            throw new UnsupportedOperationException("test double: Minimal attaches no segment (" + size
                + " bytes asked); these tests never attach one");
        }

        @Override
        public void close() {
        }
    }

    private record Provider(boolean isAvailable) implements ConduitProvider {
        @Override
        public String name() {
            return "minimal";
        }

        @Override
        public Conduit open(ConduitContext context) {
            throw new UnsupportedOperationException("test double: Provider only reports its availability; "
                + "these tests never open a conduit through it");
        }
    }

    @Test
    void peerSegmentWithoutCrossMappingNamesTheConduitAndTheCapability() {
        try (Minimal c = new Minimal()) {
            final UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> c.peerSegment(1));
            assertTrue(e.getMessage().contains("minimal") && e.getMessage().contains("crossMapped()")
                && e.getMessage().contains("rank 1"), e.getMessage());
            assertNull(c.rma(), "no native RMA");
        }
    }

    @Test
    void putWithImmediateWithoutImmediatesNamesTheTransportAndTheCapability() {
        final RmaTransport putOnly = new RmaTransport() {
            @Override
            public int put(int peer, long remoteOffset, MemorySegment src, long srcOffset, long nbytes, long op) {
                return Conduit.OK;
            }

            @Override
            public int get(MemorySegment dst, long dstOffset, int peer, long remoteOffset, long nbytes, long op) {
                return Conduit.OK;
            }
        };
        final MemorySegment src = Arena.ofAuto().allocate(8);
        final UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
            () -> putOnly.putWithImmediate(3, 0, src, 0, 8, 1, 1));
        assertTrue(e.getMessage().contains(SpiDefaultsTest.class.getName()) && e.getMessage().contains("immediateBits")
            && e.getMessage().contains("rank 3"), e.getMessage());
    }

    @Test
    void unavailabilityCauseIsNullWhenAvailableAndNamesTheConduitOtherwise() {
        assertNull(new Provider(true).unavailabilityCause());
        final Throwable cause = new Provider(false).unavailabilityCause();
        assertTrue(cause != null && cause.getMessage().contains("minimal"), String.valueOf(cause));
    }

    @Test
    void rmaFailureCodesAreDistinctNegativesAndDescribed() {
        final int[] codes = {RmaTransport.ACCESS_ERROR, RmaTransport.PEER_CLOSED, RmaTransport.FAILED};
        for (int i = 0; i < codes.length; i++) {
            assertTrue(codes[i] < 0 && codes[i] != Conduit.NO_ROOM, "code " + codes[i]);
            for (int j = i + 1; j < codes.length; j++) {
                assertTrue(codes[i] != codes[j], "codes " + i + " and " + j + " differ");
            }
            assertTrue(RmaTransport.describe(codes[i]).contains(Integer.toString(codes[i])));
        }
        assertTrue(RmaTransport.describe(-99).contains("unknown status -99"));
    }
}
