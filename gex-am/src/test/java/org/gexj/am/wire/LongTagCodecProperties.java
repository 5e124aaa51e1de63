package org.gexj.am.wire;

import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class LongTagCodecProperties {
    /** Two draws in ten are an end of the range: uniform draws alone almost never hit the largest rank or slot. */
    private static Gen<Integer> edgeBiased(int lo, int hi) {
        return Generate.frequency(Pair.of(8, Generate.range(lo, hi)), Pair.of(1, Generate.constant(lo)),
            Pair.of(1, Generate.constant(hi)));
    }

    private static Gen<Long> edgeBiased(long lo, long hi) {
        return Generate.frequency(Pair.of(8, Generate.longRange(lo, hi)), Pair.of(1, Generate.constant(lo)),
            Pair.of(1, Generate.constant(hi)));
    }

    /** The fields of one tag, each drawn within the range its codec allows. */
    record Fields(int immediateBits, int slotBits, int direction, int slot, int source) {
        LongTagCodec codec() {
            return new LongTagCodec(immediateBits, slotBits);
        }
    }

    private static Gen<Fields> fields(int immediateBits) {
        return in -> {
            final int slotBits = edgeBiased(0, LongTagCodec.MAX_SLOT_BITS).generate(in);
            final LongTagCodec codec = new LongTagCodec(immediateBits, slotBits);
            return new Fields(immediateBits, slotBits, Generate.range(0, 1).generate(in),
                edgeBiased(0, codec.slots() - 1).generate(in), edgeBiased(0, codec.maxRanks() - 1).generate(in));
        };
    }

    private static void roundTrips(Fields f) {
        final LongTagCodec codec = f.codec();
        final long tag = codec.encode(f.direction(), f.slot(), f.source());
        if (f.immediateBits() == 32) {
            assertEquals(0, tag >>> 32, "a 32-bit tag leaves the upper bits clear");
        }
        assertEquals(LongTagCodec.KIND_AM_LONG, codec.kind(tag));
        assertEquals(f.direction(), codec.direction(tag));
        assertEquals(f.slot(), codec.slot(tag));
        assertEquals(f.source(), codec.source(tag));
        assertTrue(codec.isValid(tag, f.source() + 1), "accepted in the smallest job holding its source");
        assertTrue(codec.isValid(tag, codec.maxRanks()), "accepted in the largest job");
        if (f.immediateBits() == 32) {
            // imm_data read as a Java int and widened: the sign extension must not matter
            final long widened = (int) tag;
            assertEquals(f.direction(), codec.direction(widened));
            assertEquals(f.slot(), codec.slot(widened));
            assertEquals(f.source(), codec.source(widened));
            assertTrue(codec.isValid(widened, f.source() + 1));
        }
    }

    @Test
    void everyField32RoundTrips() {
        qt().withExamples(2000).forAll(fields(32)).checkAssert(LongTagCodecProperties::roundTrips);
    }

    @Test
    void everyField64RoundTrips() {
        qt().withExamples(2000).forAll(fields(64)).checkAssert(LongTagCodecProperties::roundTrips);
    }

    /** A raw tag, put together from its bit fields here rather than by the codec, and the job it arrives in. */
    record RawTag(int immediateBits, int slotBits, int kind, int direction, int slot, long sourceField, int jobSize) {
        long tag() {
            final int sourceBits = immediateBits - 2 - slotBits;
            return (long) kind << (immediateBits - 1) | (long) direction << (immediateBits - 2)
                | (long) slot << sourceBits | sourceField;
        }

        @Override
        public String toString() {
            return "RawTag[bits=" + immediateBits + ", slotBits=" + slotBits + ", kind=" + kind + ", dir=" + direction
                + ", slot=" + slot + ", sourceField=" + sourceField + ", jobSize=" + jobSize
                + ", tag=0x" + Long.toHexString(tag()) + "]";
        }
    }

    /** Source fields cluster around the job size, where acceptance flips, and reach the top of the field. */
    private static Gen<RawTag> rawTags() {
        return in -> {
            final int bits = Generate.pick(List.of(32, 64)).generate(in);
            final int slotBits = edgeBiased(0, LongTagCodec.MAX_SLOT_BITS).generate(in);
            final LongTagCodec codec = new LongTagCodec(bits, slotBits);
            final long maxSourceField = (1L << (bits - 2 - slotBits)) - 1;
            final int jobSize = edgeBiased(1, codec.maxRanks()).generate(in);
            final long near =
                Math.max(0, Math.min(maxSourceField, jobSize + (long) Generate.range(-2, 2).generate(in)));
            final long sourceField = Generate.frequency(Pair.of(1, Generate.constant(near)),
                Pair.of(1, edgeBiased(0L, maxSourceField))).generate(in);
            return new RawTag(bits, slotBits, Generate.range(0, 1).generate(in), Generate.range(0, 1).generate(in),
                edgeBiased(0, codec.slots() - 1).generate(in), sourceField, jobSize);
        };
    }

    @Test
    void exactlyTheAmLongTagsOfRanksInTheJobAreAccepted() {
        qt().withExamples(3000).forAll(rawTags()).checkAssert(raw -> {
            final LongTagCodec codec = new LongTagCodec(raw.immediateBits(), raw.slotBits());
            final boolean expected = raw.kind() == LongTagCodec.KIND_AM_LONG && raw.sourceField() < raw.jobSize();
            assertEquals(expected, codec.isValid(raw.tag(), raw.jobSize()));
            if (expected) {
                assertTrue(codec.slot(raw.tag()) < codec.slots());
                assertEquals(raw.tag(), codec.encode(codec.direction(raw.tag()), codec.slot(raw.tag()),
                    codec.source(raw.tag())), "an accepted tag is exactly the encoding of its fields");
            }
        });
    }

    @Test
    void constructorRejectsOtherWidthsAndSlotBits() {
        qt().forAll(integers().between(-100, 200)).assuming(bits -> bits != 32 && bits != 64).checkAssert(bits -> {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LongTagCodec(bits, 6));
            assertTrue(e.getMessage().contains(bits + " bits") && e.getMessage().contains("32 or 64"), e.getMessage());
        });
        qt().forAll(integers().between(-100, 100)).assuming(b -> b < 0 || b > LongTagCodec.MAX_SLOT_BITS)
            .checkAssert(slotBits -> {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new LongTagCodec(32, slotBits));
                assertTrue(e.getMessage().contains(slotBits + " slot bits")
                    && e.getMessage().contains("0.." + LongTagCodec.MAX_SLOT_BITS), e.getMessage());
            });
    }

    @Test
    void maxRanksIsWhatTheSourceFieldCanName() {
        assertEquals(1 << 24, new LongTagCodec(32, 6).maxRanks());
        assertEquals(1 << 30, new LongTagCodec(32, 0).maxRanks());
        assertEquals(1 << 14, new LongTagCodec(32, 16).maxRanks());
        assertEquals(Integer.MAX_VALUE, new LongTagCodec(64, 6).maxRanks());
        assertEquals(Integer.MAX_VALUE, new LongTagCodec(64, 16).maxRanks());
        final LongTagCodec codec = new LongTagCodec(32, 6);
        assertEquals(1 << 24, codec.checkJobSize(1 << 24));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> codec.checkJobSize((1 << 24) + 1));
        assertTrue(e.getMessage().contains(((1 << 24) + 1) + " ranks") && e.getMessage().contains("1.." + (1 << 24)),
            e.getMessage());
    }

    @Test
    void fieldsOutOfRangeAreNotEncoded() {
        qt().forAll(fields(32)).checkAssert(f -> {
            final LongTagCodec codec = f.codec();
            assertThrows(IllegalArgumentException.class, () -> codec.encode(2, f.slot(), f.source()));
            assertThrows(IllegalArgumentException.class, () -> codec.encode(f.direction(), codec.slots(), f.source()));
            assertThrows(IllegalArgumentException.class, () -> codec.encode(f.direction(), -1, f.source()));
            assertThrows(IllegalArgumentException.class, () -> codec.encode(f.direction(), f.slot(), codec.maxRanks()));
            assertThrows(IllegalArgumentException.class, () -> codec.encode(f.direction(), f.slot(), -1));
        });
    }

    @Test
    void otherKindsAreNeverAccepted() {
        qt().withExamples(2000).forAll(fields(64), Generate.longRange(Long.MIN_VALUE, Long.MAX_VALUE))
            .checkAssert((f, raw) -> {
                final LongTagCodec codec = f.codec();
                final long kindCleared = raw & ~(1L << (f.immediateBits() - 1));
                assertEquals(LongTagCodec.KIND_OTHER, codec.kind(kindCleared));
                assertFalse(codec.isValid(kindCleared, codec.maxRanks()));
                final LongTagCodec narrow = new LongTagCodec(32, f.slotBits());
                assertFalse(narrow.isValid(raw & ~(1L << 31), narrow.maxRanks()));
            });
    }
}
