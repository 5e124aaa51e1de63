package org.gexj.smp;

import org.agrona.DirectBuffer;
import org.gexj.spi.Claim;
import org.gexj.spi.Conduit;
import org.gexj.spi.ConduitListener;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Test helpers for AM frames: send a byte array through claim/write/commit, record what poll delivers. */
final class Frames {
    private Frames() {
    }

    /** Deterministic content for a frame, so a byte out of place shows. */
    static byte[] pattern(long seed, int length) {
        final byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    /** Claims, writes and commits {@code frame}; fails the test if the path is back-pressured. */
    static void send(Conduit from, int target, int channel, byte[] frame) {
        final Claim claim = new Claim();
        final int code = from.claim(claim, target, channel, frame.length);
        assertTrue(code == Conduit.OK, "claim of " + frame.length + " bytes to rank " + target + " returned " + code);
        claim.buffer().putBytes(claim.offset(), frame);
        from.commit(claim);
    }

    /** One delivered frame. */
    record Frame(int channel, byte[] bytes) {
    }

    /** A listener that copies every frame it is given. */
    static final class Recorder implements ConduitListener {
        final List<Frame> frames = new ArrayList<>();

        @Override
        public void onFrame(int channel, DirectBuffer buffer, int offset, int length) {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            frames.add(new Frame(channel, bytes));
        }

        /** Polls until {@code conduit} delivers nothing more, and returns what it delivered. */
        List<Frame> drain(Conduit conduit) {
            frames.clear();
            while (conduit.poll(this, Conduit.ALL_CHANNELS, 64) > 0) {
                Thread.onSpinWait();
            }
            return List.copyOf(frames);
        }
    }
}
