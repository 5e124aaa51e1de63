package org.gexj.am.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class AmFrameFlyweightProperties {
    private static final Gen<Byte> ANY_BYTE = Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0);

    /** One draw in ten is an edge value: random draws alone almost never hit the bounds of a wide range. */
    @SafeVarargs
    private static <T> Gen<T> edgeBiased(Gen<T> values, T... edges) {
        return Generate.frequency(Pair.of(9, values), Pair.of(1, Generate.pick(List.of(edges))));
    }

    /** The fields of one generated frame; arrays are printed by value so a counterexample can be read. */
    record Frame(int category, boolean request, boolean inline, int handler, int[] args, int source, byte[] payload,
                 long dest, int misalign, int credit) {
        /** Only a Long whose payload travels apart, holding a credit slot, is reassembled. */
        boolean reassembly() {
            return category == AmFrameFlyweight.CATEGORY_LONG && !inline && credit >= 0;
        }

        @Override
        public String toString() {
            return "Frame[category=" + category + ", request=" + request + ", inline=" + inline + ", handler=" + handler
                + ", args=" + Arrays.toString(args) + ", source=" + source + ", payload=" + Arrays.toString(payload)
                + ", dest=" + dest + ", misalign=" + misalign + ", credit=" + credit + "]";
        }
    }

    private static Gen<Frame> frames() {
        final Gen<Integer> category = integers().between(0, 2);
        final Gen<Boolean> flag = booleans().all();
        final Gen<Integer> handler = integers().between(1, 255);
        final Gen<int[]> args = Generate.intArrays(integers().between(0, 16),
            edgeBiased(integers().all(), 0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE));
        final Gen<Integer> source = edgeBiased(integers().between(0, 1 << 20), 0, 1, 1 << 20);
        final Gen<byte[]> payload = Generate.byteArrays(integers().between(0, 300), ANY_BYTE);
        final Gen<Long> dest = edgeBiased(longs().between(0, Long.MAX_VALUE), 0L, 1L, Long.MAX_VALUE);
        final Gen<Integer> misalign = integers().between(0, 7);
        final Gen<Integer> credit = edgeBiased(integers().between(-1, 1022), -1, 0, 63, 1022);
        return in -> new Frame(category.generate(in), flag.generate(in), flag.generate(in), handler.generate(in),
            args.generate(in), source.generate(in), payload.generate(in), dest.generate(in), misalign.generate(in),
            credit.generate(in));
    }

    /** Fills the buffer around a frame: encoding a frame writes nothing past its length. */
    private static final byte SENTINEL = (byte) 0xA5;

    /**
     * A rendezvous Long's 32-byte trailer reads back what was written (offset, handle, operation, key, address), for
     * every arg count and any values, validates, and writes nothing past the frame.
     */
    @Test
    void rendezvousTrailersRoundTrip() {
        qt().forAll(integers().between(0, AmFrameFlyweight.MAX_ARGS), longs().all(), integers().all(),
                longs().all().zip(longs().all(), (k, a) -> new long[] {k, a}))
            .checkAssert((nargs, offset, handle, keyAndAddress) -> {
                final long key = keyAndAddress[0];
                final long address = keyAndAddress[1];
                final int length = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, nargs,
                    AmFrameFlyweight.RENDEZVOUS_TRAILER);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length + 16]);
                buffer.setMemory(0, length + 16, SENTINEL);
                AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_LONG | AmFrameFlyweight.TYPE_REQUEST
                    | AmFrameFlyweight.TYPE_RENDEZVOUS, 7, nargs, 3, 1 << 20, 4096);
                for (int i = 0; i < nargs; i++) {
                    buffer.putInt(AmFrameFlyweight.ARGS_OFFSET + 4 * i, i);
                }
                AmFrameFlyweight.encodeRendezvous(buffer, 0, nargs, offset, handle, ~handle, key, address);
                final AmFrameFlyweight f = new AmFrameFlyweight().wrap(buffer, 0, length);
                assertNull(f.validate());
                assertEquals(offset, f.rendezvousOffset());
                assertEquals(handle, f.rendezvousHandle());
                assertEquals(~handle, f.rendezvousOperation());
                assertEquals(key, f.rendezvousKey());
                assertEquals(address, f.rendezvousAddress());
                for (int i = length; i < length + 16; i++) {
                    assertEquals(SENTINEL, buffer.getByte(i), "byte " + i + " past the frame");
                }
            });
    }

    /**
     * Only a Long carries a destination: a Short's or Medium's args and payload follow the 16-byte header, so that on
     * smp a Medium of up to 32 bytes with no args rides in its ring record's first cache line (after the 16-byte record
     * header), the line its reader polls.
     */
    @Test
    void onlyLongFramesCarryADestination() {
        assertEquals(16, AmFrameFlyweight.payloadOffset(AmFrameFlyweight.CATEGORY_MEDIUM, 0));
        assertEquals(16 + 32, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_MEDIUM, 0, 32));
        assertEquals(24, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_MEDIUM, 1, 1) - 1);
        assertEquals(16, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_SHORT, 0, 0));
        assertEquals(32, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_SHORT, 4, 0));
        assertEquals(24, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, 0, 0));
        assertEquals(32, AmFrameFlyweight.payloadOffset(AmFrameFlyweight.CATEGORY_LONG, 1));
        assertEquals(16 + 64 + 8, AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, 16, 0));
    }

    @Test
    void everyFieldRoundTrips() {
        qt().withExamples(1000).forAll(frames()).checkAssert(f -> {
            final int nargs = f.args().length;
            final boolean carries = f.category() == AmFrameFlyweight.CATEGORY_MEDIUM
                || (f.category() == AmFrameFlyweight.CATEGORY_LONG && f.inline());
            final byte[] body = f.category() == AmFrameFlyweight.CATEGORY_SHORT ? new byte[0] : f.payload();
            final int length = AmFrameFlyweight.frameLength(f.category(), nargs, carries ? body.length : 0);
            final int at = 8 * f.misalign();
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(at + length + 16));
            buffer.setMemory(0, buffer.capacity(), SENTINEL);
            final int type = f.category() | (f.request() ? AmFrameFlyweight.TYPE_REQUEST : 0)
                | (f.category() == AmFrameFlyweight.CATEGORY_LONG && f.inline() ? AmFrameFlyweight.TYPE_INLINE : 0)
                | (f.reassembly() ? AmFrameFlyweight.TYPE_REASSEMBLY : 0);
            AmFrameFlyweight.encodeHeader(buffer, at, type, f.handler(), nargs, f.source(), body.length, f.dest());
            AmFrameFlyweight.encodeCredit(buffer, at, f.credit());
            for (int i = 0; i < nargs; i++) {
                AmFrameFlyweight.encodeArg(buffer, at, i, f.args()[i]);
            }
            if (carries) {
                buffer.putBytes(at + AmFrameFlyweight.payloadOffset(f.category(), nargs), body);
            }

            final AmFrameFlyweight frame = new AmFrameFlyweight().wrap(buffer, at, length);
            assertNull(frame.validate());
            assertEquals(AmFrameFlyweight.VERSION, frame.version());
            assertEquals(f.category(), frame.category());
            assertEquals(f.request(), frame.isRequest());
            assertEquals(f.category() == AmFrameFlyweight.CATEGORY_LONG && f.inline(), frame.isInline());
            assertEquals(f.handler(), frame.handler());
            assertEquals(nargs, frame.nargs());
            assertEquals(f.source(), frame.source());
            assertEquals(body.length, frame.payloadLength());
            if (f.category() == AmFrameFlyweight.CATEGORY_LONG) {
                assertEquals(f.dest(), frame.dest());
            }
            assertEquals(f.credit(), frame.credit());
            assertEquals(f.reassembly(), frame.isReassembly());
            for (int i = 0; i < nargs; i++) {
                assertEquals(f.args()[i], frame.arg(i));
            }
            if (carries) {
                final byte[] back = new byte[body.length];
                buffer.getBytes(frame.payloadIndex(), back);
                assertArrayEquals(body, back);
                assertEquals(0, frame.payloadIndex() % 8, "payload is 8-byte aligned");
            }
            for (int i = at + length; i < buffer.capacity(); i++) {
                assertEquals(SENTINEL, buffer.getByte(i), "byte " + (i - at) + " after a frame of " + length);
            }
        });
    }

    /**
     * The reassembly flag is valid only on a Long with its payload apart and a credit slot: anything else is dropped.
     */
    @Test
    void misplacedReassemblyFlagsAreRejected() {
        qt().withExamples(300).forAll(frames()).checkAssert(f -> {
            final UnsafeBuffer buffer =
                new UnsafeBuffer(new byte[AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, 0, 0)]);
            final int type = f.category() | AmFrameFlyweight.TYPE_REASSEMBLY
                | (f.category() == AmFrameFlyweight.CATEGORY_LONG && f.inline() ? AmFrameFlyweight.TYPE_INLINE : 0);
            AmFrameFlyweight.encodeHeader(buffer, 0, type, f.handler(), 0, f.source(), 0, 0);
            AmFrameFlyweight.encodeCredit(buffer, 0, f.credit());
            final String why = new AmFrameFlyweight().wrap(buffer, 0, buffer.capacity()).validate();
            assertEquals(f.reassembly(), why == null, f + ": " + why);
        });
    }

    @Test
    void truncatedFramesAreRejected() {
        qt().withExamples(1000)
            .forAll(integers().between(0, 16), integers().between(1, 64), integers().between(1, 200))
            .checkAssert((nargs, payloadLength, cut) -> {
                final int length = AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_MEDIUM, nargs, payloadLength);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
                AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_MEDIUM, 200, nargs, 0,
                    payloadLength, 0);
                final int shorter = Math.max(0, length - cut);
                assertNotNull(new AmFrameFlyweight().wrap(buffer, 0, shorter).validate());
            });
    }

    /** The one accepted version is mixed in: a uniform draw over 256 values could miss it. */
    @Test
    void wrongVersionIsRejected() {
        qt().withExamples(1000).forAll(edgeBiased(ANY_BYTE, AmFrameFlyweight.VERSION)).checkAssert(version -> {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
            AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_SHORT, 200, 0, 0, 0, 0);
            buffer.putByte(AmFrameFlyweight.VERSION_OFFSET, version);
            final String why = new AmFrameFlyweight().wrap(buffer, 0, 64).validate();
            assertEquals(version == AmFrameFlyweight.VERSION, why == null);
        });
    }

    /** A Long apart from its frame may be up to 4 GiB - 1: the length field is unsigned, never read as negative. */
    @Test
    void longPayloadLengthsUpToTheLimitRoundTrip() {
        qt().withExamples(1000)
            .forAll(edgeBiased(longs().between(0, AmFrameFlyweight.MAX_PAYLOAD), 0L, (long) Integer.MAX_VALUE,
                1L << 31, AmFrameFlyweight.MAX_PAYLOAD))
            .checkAssert(length -> {
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
                AmFrameFlyweight.encodeHeader(buffer, 0, AmFrameFlyweight.CATEGORY_LONG | AmFrameFlyweight.TYPE_REQUEST,
                    200, 0, 0, length, 4096);
                final AmFrameFlyweight frame = new AmFrameFlyweight().wrap(buffer, 0,
                    AmFrameFlyweight.frameLength(AmFrameFlyweight.CATEGORY_LONG, 0, 0));
                assertNull(frame.validate(), "a Long of " + length + " bytes");
                assertEquals(length, frame.payloadLength());
            });
    }
}
