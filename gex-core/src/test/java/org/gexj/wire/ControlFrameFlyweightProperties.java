package org.gexj.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class ControlFrameFlyweightProperties {
    @Test
    void barrierFramesRoundTripAndAreToldApartFromAmFrames() {
        qt().withExamples(1000).forAll(integers().between(0, 31), integers().between(0, 1),
            integers().between(1, 1 << 20), integers().between(0, 64)).checkAssert((round, parity, ranks, at) -> {
                final int rounds = 32 - Integer.numberOfLeadingZeros(Math.max(1, ranks - 1)) + 1;
                final int r = Math.min(round, rounds - 1);
                final int source = ranks - 1;
                final UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
                ControlFrameFlyweight.encodeBarrier(b, at, r, parity, source);
                assertTrue(ControlFrameFlyweight.isControl(b, at, ControlFrameFlyweight.LENGTH));
                assertNull(ControlFrameFlyweight.validateBarrier(b, at, ControlFrameFlyweight.LENGTH, rounds, ranks));
                assertEquals(r, ControlFrameFlyweight.round(b, at));
                assertEquals(parity, ControlFrameFlyweight.parity(b, at));
                assertEquals(source, ControlFrameFlyweight.source(b, at));
                // out of range for a smaller job, a shorter frame, another version: rejected, never counted
                assertNotNull(ControlFrameFlyweight.validateBarrier(b, at,
                    ControlFrameFlyweight.LENGTH, rounds, source));
                assertNotNull(ControlFrameFlyweight.validateBarrier(b, at,
                    ControlFrameFlyweight.LENGTH - 1, rounds, ranks));
                b.putByte(at, (byte) (ControlFrameFlyweight.MARKER | 2));
                assertNotNull(ControlFrameFlyweight.validateBarrier(b, at,
                    ControlFrameFlyweight.LENGTH, rounds, ranks));
            });
    }

    @Test
    void amFramesAreNotControlFrames() {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
        qt().withExamples(200).forAll(integers().between(0, 127)).checkAssert(version -> {
            b.putByte(0, (byte) (int) version);
            assertFalse(ControlFrameFlyweight.isControl(b, 0, 8));
        });
        assertFalse(ControlFrameFlyweight.isControl(b, 0, 0), "an empty frame");
    }
}
