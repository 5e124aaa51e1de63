package org.gexj.rdma.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class RdmaHeaderFlyweightProperties {
    private static final int LENGTH = RdmaHeaderFlyweight.LENGTH;
    private static final byte SENTINEL = (byte) 0xA5;

    /** One header's fields, as write() takes them. */
    record Header(byte kind, int channel, int source, int requestCredits, int replyCredits) {
    }

    /** Any field values; channels are those write() takes (0 and 1). */
    private static Gen<Header> anyHeader() {
        return integers().between(Byte.MIN_VALUE, Byte.MAX_VALUE).zip(integers().between(0, 1),
            integers().all(), longs().all(), (kind, channel, source, credits) -> new Header((byte) (int) kind,
                channel, source, (int) (credits >>> 32), (int) (long) credits));
    }

    /** Headers a job of 64 ranks accepts: every kind the conduit sends, a frame channel, a rank, credits >= 0. */
    private static Gen<Header> validHeader() {
        return arbitrary().pick(RdmaHeaderFlyweight.KIND_FRAME, RdmaHeaderFlyweight.KIND_CREDIT,
                RdmaHeaderFlyweight.KIND_CLOSE)
            .zip(integers().between(0, 1), integers().between(0, 63), longs().all(), (kind, channel, source, credits)
                -> new Header(kind, channel, source, (int) (credits >>> 33),
                    (int) ((long) credits & Integer.MAX_VALUE)));
    }

    private static RdmaHeaderFlyweight written(UnsafeBuffer b, int offset, Header h) {
        return new RdmaHeaderFlyweight().wrap(b, offset).write(h.kind(), h.channel(), h.source(), h.requestCredits(),
            h.replyCredits());
    }

    @Test
    void whatIsWrittenIsReadBackAtAnyOffsetAndNothingAroundItIsTouched() {
        qt().withExamples(2000).forAll(anyHeader(), integers().between(0, 48)).checkAssert((h, offset) -> {
            final byte[] bytes = new byte[64 + LENGTH];
            Arrays.fill(bytes, SENTINEL);
            final UnsafeBuffer b = new UnsafeBuffer(bytes);
            final RdmaHeaderFlyweight f = written(b, offset, h);
            assertEquals(RdmaHeaderFlyweight.VERSION, f.version());
            assertEquals(h.kind(), f.kind());
            assertEquals(h.channel(), f.channel());
            assertEquals(h.source(), f.source());
            assertEquals(h.requestCredits(), f.requestCredits());
            assertEquals(h.replyCredits(), f.replyCredits());
            // a second flyweight over the same bytes reads the same: the state is in the buffer
            assertEquals(h.source(), new RdmaHeaderFlyweight().wrap(b, offset).source());
            for (int i = 0; i < bytes.length; i++) {
                if (i < offset || i >= offset + LENGTH) {
                    assertEquals(SENTINEL, bytes[i], "byte " + i + " outside the header at " + offset);
                }
            }
            // the documented little-endian layout: version, kind, channel, unused, source, credits, credits
            assertEquals(RdmaHeaderFlyweight.VERSION, bytes[offset]);
            assertEquals(h.kind(), bytes[offset + 1]);
            assertEquals((byte) h.channel(), bytes[offset + 2]);
            assertEquals(0, bytes[offset + 3], "the unused byte is zeroed, not left over");
            assertEquals(h.source(), b.getInt(offset + 4, ByteOrder.LITTLE_ENDIAN));
            assertEquals(h.requestCredits(), b.getInt(offset + 8, ByteOrder.LITTLE_ENDIAN));
            assertEquals(h.replyCredits(), b.getInt(offset + 12, ByteOrder.LITTLE_ENDIAN));
        });
    }

    @Test
    void validateAcceptsExactlyTheWellFormedHeaders() {
        // a model of the rules, over any header bytes, lengths and job sizes: foreign versions, ranks out of range,
        // negative credits, unknown kinds and frame channels other than request/reply are all reached
        final Gen<Integer> versions = integers().between(0, 3).mix(integers().between(Byte.MIN_VALUE, Byte.MAX_VALUE));
        final Gen<Integer> kinds = integers().between(0, 4).mix(integers().between(Byte.MIN_VALUE, Byte.MAX_VALUE));
        final Gen<Integer> channels = integers().between(0, 3).mix(integers().between(0, 255));
        final Gen<Integer> sources = integers().between(-2, 66).mix(integers().all());
        final Gen<Integer> credits = integers().between(-2, 1000).mix(integers().all());
        final Gen<int[]> fields = versions.zip(kinds, channels, sources, credits,
            (v, k, c, s, r) -> new int[] {v, k, c, s, r});
        qt().withExamples(5000).forAll(fields, credits, integers().between(0, 40).mix(integers().between(0, 1 << 20)),
            integers().between(1, 64)).checkAssert((f, reply, length, ranks) -> {
                final UnsafeBuffer b = new UnsafeBuffer(new byte[LENGTH]);
                final RdmaHeaderFlyweight h = new RdmaHeaderFlyweight().wrap(b, 0).write((byte) f[1], 0, f[3], f[4],
                    reply);
                b.putByte(0, (byte) (int) f[0]);
                b.putByte(2, (byte) (int) f[2]); // any channel byte as a peer may send it: write() takes only 0 and 1
                final byte kind = (byte) (int) f[1];
                final int channel = f[2] & 0xFF;
                final boolean wellFormed = length >= LENGTH && f[0] == RdmaHeaderFlyweight.VERSION
                    && f[3] >= 0 && f[3] < ranks && f[4] >= 0 && reply >= 0
                    && (kind == RdmaHeaderFlyweight.KIND_FRAME ? channel == 0 || channel == 1
                    : kind == RdmaHeaderFlyweight.KIND_CREDIT || kind == RdmaHeaderFlyweight.KIND_CLOSE);
                final String why = h.validate(length, ranks);
                assertEquals(wellFormed, why == null, () -> "version " + f[0] + " kind " + kind + " channel "
                    + channel + " source " + f[3] + " credits " + f[4] + "/" + reply + " length " + length + " ranks "
                    + ranks + ": " + why);
            });
    }

    /** One way to spoil a well-formed header, and the word its rejection must name. */
    record Spoiler(String word, Spoil spoil) {
    }

    interface Spoil {
        /** @return the message length to validate */
        int apply(UnsafeBuffer b, Header h, int ranks, int seed);
    }

    @Test
    void eachSingleDefectIsRejectedSayingWhich() {
        final List<Spoiler> spoilers = List.of(
            new Spoiler("shorter", (b, h, ranks, seed) -> Math.floorMod(seed, LENGTH)),
            new Spoiler("version", (b, h, ranks, seed) -> {
                final byte v = (byte) seed;
                b.putByte(0, v == RdmaHeaderFlyweight.VERSION ? (byte) (v + 1) : v);
                return LENGTH;
            }),
            new Spoiler("source", (b, h, ranks, seed) -> {
                b.putInt(4, seed >= 0 ? ranks + seed % 1000 : -1 - Math.floorMod(seed, 1000),
                    ByteOrder.LITTLE_ENDIAN);
                return LENGTH;
            }),
            new Spoiler("credits", (b, h, ranks, seed) -> {
                b.putInt((seed & 1) == 0 ? 8 : 12, seed | Integer.MIN_VALUE, ByteOrder.LITTLE_ENDIAN);
                return LENGTH;
            }),
            new Spoiler("kind", (b, h, ranks, seed) -> {
                final byte k = (byte) (4 + Math.floorMod(seed, 250)); // 4..253: none of FRAME, CREDIT, CLOSE
                b.putByte(1, k);
                return LENGTH;
            }),
            new Spoiler("channel", (b, h, ranks, seed) -> {
                b.putByte(1, RdmaHeaderFlyweight.KIND_FRAME);
                b.putByte(2, (byte) (2 + Math.floorMod(seed, 254))); // 2..255
                return LENGTH;
            }));
        qt().withExamples(3000).forAll(validHeader(), arbitrary().pick(spoilers), integers().all(),
            integers().between(0, 1 << 16)).checkAssert((h, spoiler, seed, extra) -> {
                final UnsafeBuffer b = new UnsafeBuffer(new byte[LENGTH]);
                final RdmaHeaderFlyweight f = written(b, 0, h);
                final int ranks = 64;
                assertNull(f.validate(LENGTH + extra, ranks), "unspoiled " + h);
                final int length = spoiler.spoil().apply(b, h, ranks, seed);
                final String why = f.validate(length, ranks);
                assertNotNull(why, spoiler.word() + " spoiled, accepted: " + h);
                assertTrue(why.contains(spoiler.word()), "'" + why + "' for a spoiled " + spoiler.word());
            });
    }

    @Test
    void creditUnitsCoverTheMessageWithOneUnitOfSlack() {
        final int unit = RdmaHeaderFlyweight.CREDIT_UNIT;
        qt().withExamples(3000).forAll(integers().between(0, 1 << 30)).checkAssert(length -> {
            final int units = RdmaHeaderFlyweight.units(length);
            // the bytes, rounded up to whole units, and exactly one unit more
            assertTrue((long) (units - 1) * unit >= length, units + " units for " + length + " bytes");
            assertTrue((long) (units - 2) * unit < Math.max(1, length), units + " units for " + length + " bytes");
            assertTrue(RdmaHeaderFlyweight.units(length + 1) >= units, "units grow with the length");
        });
        assertEquals(1, RdmaHeaderFlyweight.units(0));
        assertEquals(2, RdmaHeaderFlyweight.units(1));
        assertEquals(2, RdmaHeaderFlyweight.units(unit));
        assertEquals(3, RdmaHeaderFlyweight.units(unit + 1));
    }

    @Test
    void writeRejectsChannelsOtherThanRequestAndReply() {
        final RdmaHeaderFlyweight f = new RdmaHeaderFlyweight().wrap(new UnsafeBuffer(new byte[LENGTH]), 0);
        for (int channel : new int[] {-1, 2, 256}) {
            final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> f.write(RdmaHeaderFlyweight.KIND_FRAME, channel, 0, 0, 0));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("channel " + channel), e.getMessage());
        }
    }
}
