package org.gexj.smp;

import org.agrona.concurrent.UnsafeBuffer;
import org.gexj.smp.wire.FrameRingDescriptor;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The ring against a model queue, under any sequence of claims, commits, aborts and reads from one thread, starting
 * from memory that already holds what earlier laps could leave: random bytes, or headers that would be valid at the
 * same index one lap earlier or later. Whatever the memory held, the consumer sees exactly the committed frames, in
 * claim order, with their bytes.
 */
class FrameRingProperties {
    /** One step: claim (then commit or abort later, in any order) or read. */
    record Op(int kind, int length, int pick) {
        static final int CLAIM = 0;
        static final int COMMIT = 1;
        static final int ABORT = 2;
        static final int READ = 3;

        @Override
        public String toString() {
            return switch (kind) {
                case CLAIM -> "claim(" + length + ")";
                case COMMIT -> "commit#" + pick;
                case ABORT -> "abort#" + pick;
                default -> "read(" + pick + ")";
            };
        }
    }

    /** What the generator produced: ring capacity, the state memory starts in, salt and the operations. */
    record Case(int capacity, int garbage, long salt, List<Op> ops) {
    }

    private static Gen<Op> ops(int capacity) {
        final int max = capacity / 8;
        final Gen<Integer> length = Generate.frequency(
            Pair.of(6, integers().between(0, max)),
            Pair.of(1, Generate.pick(List.of(0, 1, max, Math.min(max, 48), Math.min(max, 49)))));
        return Generate.frequency(
            Pair.of(4, length.map(l -> new Op(Op.CLAIM, l, 0))),
            Pair.of(3, integers().between(0, 7).map(p -> new Op(Op.COMMIT, 0, p))),
            Pair.of(1, integers().between(0, 7).map(p -> new Op(Op.ABORT, 0, p))),
            Pair.of(2, integers().between(1, 4).map(p -> new Op(Op.READ, 0, p))));
    }

    private static Gen<Case> cases() {
        return Generate.pick(List.of(256, 512, 1024, 4096)).flatMap(capacity ->
            integers().between(0, 2).zip(longs().all(),
                lists().of(ops(capacity)).ofSizeBetween(1, 400),
                (garbage, salt, ops) -> new Case(capacity, garbage, salt, ops)));
    }

    static UnsafeBuffer memory(int capacity) {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(capacity + FrameRingDescriptor.TRAILER_LENGTH));
    }

    /**
     * Fills the records area as earlier laps could have: 1 random bytes; 2 at every 16-byte index a header that was
     * committed there one to three laps earlier (plausible length and type, the tag of that lap).
     */
    static void soil(UnsafeBuffer buffer, int capacity, int garbage, long salt, Random random) {
        if (garbage == 1) {
            for (int i = 0; i < capacity; i++) {
                buffer.putByte(i, (byte) random.nextInt());
            }
        } else if (garbage == 2) {
            final long s = salt | Long.MIN_VALUE;
            for (int i = 0; i + FrameRingDescriptor.HEADER_LENGTH <= capacity; i += 16) {
                buffer.putInt(i, FrameRingDescriptor.HEADER_LENGTH + random.nextInt(64));
                buffer.putInt(i + 4, FrameRingDescriptor.FRAME);
                // an earlier lap: memory never holds what a later lap will write
                buffer.putLong(i + 8, FrameRingDescriptor.tag(i - (long) capacity * (1 + random.nextInt(3)), s));
            }
        }
    }

    static byte[] content(int id, int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (id * 31 + i * 7 + 3);
        }
        return bytes;
    }

    @Test
    void consumerSeesExactlyTheCommittedFramesInClaimOrder() {
        qt().withExamples(3000).forAll(cases()).checkAssert(c -> {
            final int capacity = c.capacity();
            final UnsafeBuffer buffer = memory(capacity);
            soil(buffer, capacity, c.garbage(), c.salt(), new Random(c.salt()));
            FrameRing.initialise(buffer, c.salt());
            final FrameRing ring = new FrameRing(buffer);
            // each claim: {id, position, length, state: 0 open, 1 committed, 2 aborted}
            final List<long[]> claimed = new ArrayList<>();
            final ArrayDeque<long[]> unread = new ArrayDeque<>();
            final List<long[]> open = new ArrayList<>();
            long tail = 0;
            for (Op op : c.ops()) {
                switch (op.kind()) {
                    case Op.CLAIM -> {
                        final int required =
                            FrameRingDescriptor.aligned(op.length() + FrameRingDescriptor.HEADER_LENGTH);
                        final int toEnd = capacity - (int) (tail & (capacity - 1));
                        final int padding = required > toEnd ? toEnd : 0;
                        final int free = capacity - ring.size();
                        final long position = ring.tryClaim(op.length());
                        if (position == FrameRing.INSUFFICIENT_CAPACITY) {
                            assertTrue(padding + required > free, "refused " + required + " bytes (+" + padding
                                + " padding) with " + free + " free");
                            continue;
                        }
                        assertEquals(tail + padding, position, "where the record goes");
                        tail = position + required;
                        final long[] entry = {claimed.size(), position, op.length(), 0};
                        buffer.putBytes(ring.frameIndex(position), content((int) entry[0], op.length()));
                        claimed.add(entry);
                        unread.add(entry);
                        open.add(entry);
                    }
                    case Op.COMMIT, Op.ABORT -> {
                        if (open.isEmpty()) {
                            continue;
                        }
                        final long[] entry = open.remove(op.pick() % open.size());
                        if (op.kind() == Op.COMMIT) {
                            ring.commit(entry[1], (int) entry[2]);
                            entry[3] = 1;
                        } else {
                            ring.abort(entry[1], (int) entry[2]);
                            entry[3] = 2;
                        }
                    }
                    default -> {
                        final int limit = op.pick();
                        final List<String> got = new ArrayList<>();
                        final FrameRing.FrameHandler collect = (b, index, length) -> {
                            final byte[] bytes = new byte[length];
                            b.getBytes(index, bytes);
                            got.add(HexFormat.of().formatHex(bytes));
                        };
                        final boolean ready = ring.ready();
                        final int frames = ring.read(collect, limit);
                        assertEquals(got.size(), frames, "frames counted");
                        final List<String> expected = new ArrayList<>();
                        while (!unread.isEmpty() && unread.peek()[3] != 0 && expected.size() < limit) {
                            final long[] e = unread.poll();
                            if (e[3] == 1) {
                                expected.add(HexFormat.of().formatHex(content((int) e[0], (int) e[2])));
                            }
                        }
                        assertEquals(expected, got, "frames read with limit " + limit);
                        if (!ready) {
                            assertEquals(0, frames, "ready() said a read would find nothing");
                        }
                    }
                }
            }
        });
    }

    /**
     * Where an earlier frame ended inside the bytes that now hold a record's tag, they hold payload in the low bytes
     * and an older lap's tag in the high ones. Even when the payload bytes equal the expected tag's (a producer cannot
     * know them, the salt is private), the stale part must not complete the match: with {@code position ^ salt} as the
     * tag the high bytes of nearby laps were equal, and a claimed record was read before its commit (CI, stop 69:
     * two payload bytes matched).
     */
    @Test
    void aFrameEndingInsideAnOldTagDoesNotCommitTheRecordThere() {
        final int capacity = 4096;
        final UnsafeBuffer buffer = memory(capacity);
        final Random random = new Random(69);
        for (int s = 0; s < 16; s++) {
            final long salt = random.nextLong();
            buffer.setMemory(0, buffer.capacity(), (byte) 0);
            FrameRing.initialise(buffer, salt);
            final FrameRing ring = new FrameRing(buffer);
            final long ringSalt = salt | Long.MIN_VALUE;
            for (int index = 0; index < capacity; index += FrameRingDescriptor.ALIGNMENT) {
                for (int lap = 65; lap < 65 + 64; lap++) {
                    final long position = (long) lap * capacity + index;
                    buffer.putLong(capacity + FrameRingDescriptor.HEAD_OFFSET, position);
                    buffer.putLong(capacity + FrameRingDescriptor.TAIL_OFFSET, position + 64);
                    buffer.putInt(index + FrameRingDescriptor.LENGTH_OFFSET, FrameRingDescriptor.HEADER_LENGTH);
                    buffer.putInt(index + FrameRingDescriptor.TYPE_OFFSET, FrameRingDescriptor.FRAME);
                    final long expected = FrameRingDescriptor.tag(position, ringSalt);
                    for (int laps = 1; laps <= 64; laps++) {
                        final long stale = FrameRingDescriptor.tag(position - (long) laps * capacity, ringSalt);
                        for (int payloadBytes = 1; payloadBytes <= 5; payloadBytes++) {
                            final long lowMask = (1L << (8 * payloadBytes)) - 1;
                            buffer.putLong(index + FrameRingDescriptor.TAG_OFFSET,
                                (expected & lowMask) | (stale & ~lowMask));
                            assertFalse(ring.ready(), "record at " + position + " looks committed: tag of "
                                + laps + " laps earlier under " + payloadBytes + " payload bytes, salt " + salt);
                            assertEquals(0, ring.read((b, i, l) -> { }, 1), "frames read at " + position);
                        }
                    }
                }
            }
        }
    }

    /**
     * The JIT priming (SmpConduit runs it once a process) meets the ring's end with records that do not fit, thousands
     * of times, so that tryClaim's and read's profiles count the padding branch before any conduit sends.
     */
    @Test
    void primingWrapsThePrivateRingWithPaddingRecords() {
        final int paddings = FrameRing.primeWrapPaths();
        assertTrue(paddings >= FrameRing.PRIMING_CLAIMS / 100, paddings + " padding records in "
            + FrameRing.PRIMING_CLAIMS + " claims");
    }
}
