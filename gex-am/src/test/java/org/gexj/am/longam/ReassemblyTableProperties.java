package org.gexj.am.longam;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;

/**
 * The matching table under any interleaving of payload and envelope arrivals from several sources, in both
 * directions, with slots recycled, duplicates and malformed envelopes mixed in.
 */
class ReassemblyTableProperties {
    enum Kind {
        PAYLOAD("P"), ENVELOPE("E"), DUPLICATE_PAYLOAD("dupP"), DUPLICATE_ENVELOPE("dupE"), MALFORMED_ENVELOPE("badE");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One completion the polling thread sees; {@code message} is -1 for a malformed envelope, which has none. */
    record Arrival(Kind kind, int source, int direction, int slot, int message, int length) {
        @Override
        public String toString() {
            final String key = kind.label + "(src=" + source + ",dir=" + direction + ",slot=" + slot;
            return switch (kind) {
                case PAYLOAD, DUPLICATE_PAYLOAD -> key + ",msg=" + message + ")";
                case ENVELOPE, DUPLICATE_ENVELOPE -> key + ",msg=" + message + ",len=" + length + ")";
                case MALFORMED_ENVELOPE -> key + ",len=" + length + ")";
            };
        }
    }

    /** What the generator produced: the table's sizes, the messages' envelope lengths and the arrival order. */
    record Schedule(int initialCapacity, int maxEnvelope, int[] envelopeLength, List<Arrival> arrivals) {
        @Override
        public String toString() {
            return "capacity=" + initialCapacity + " maxEnvelope=" + maxEnvelope + " " + arrivals;
        }
    }

    /** Return codes by name, so that a failure reads "expected: <STORED> but was: <COMPLETE>". */
    static String name(int code) {
        return switch (code) {
            case ReassemblyTable.STORED -> "STORED";
            case ReassemblyTable.COMPLETE -> "COMPLETE";
            case ReassemblyTable.DUPLICATE -> "DUPLICATE";
            case ReassemblyTable.MALFORMED -> "MALFORMED";
            default -> "unknown code " + code;
        };
    }

    /** The envelope bytes of message {@code id}: its id, then a pattern that differs between ids. */
    static byte[] envelope(int id, int length) {
        final byte[] bytes = new byte[length];
        final UnsafeBuffer view = new UnsafeBuffer(bytes);
        view.putInt(0, id);
        for (int i = 4; i < length; i++) {
            bytes[i] = (byte) (id * 131 + i * 7 + 1);
        }
        return bytes;
    }

    private static final int MAX_KEYS = 12;
    private static final int MAX_USES = 3;
    private static final int MAX_MALFORMED = 3;

    /**
     * Keys (source 0..3, direction, slot 0..7) each carry 1..3 messages one after another, as a credit slot is recycled
     * once its pair was matched: a message's two arrivals come in either order, possibly with a duplicate of the first
     * between them, and the next message on the key starts after both. The keys' sequences are merged in a random
     * interleaving, and malformed envelopes for random keys are inserted anywhere.
     *
     * <p>The draws for the largest schedule are always made and the unused ones ignored, so that shrinking one count
     * does not shift the meaning of every later draw; each draw shrinks toward the simpler case (no duplicate, no
     * malformed envelope, the first key first), which keeps counterexamples short.
     */
    static Gen<Schedule> schedules() {
        return in -> {
            final int initialCapacity = Generate.range(1, 4).generate(in);
            final int maxEnvelope = Generate.range(8, 128).generate(in);
            final int keyCount = Generate.range(1, MAX_KEYS).generate(in);
            final int malformedCount = Generate.range(0, MAX_MALFORMED).generate(in);
            final Set<List<Integer>> seen = new HashSet<>();
            final List<List<Arrival>> perKey = new ArrayList<>();
            final List<Integer> messageLengths = new ArrayList<>();
            for (int k = 0; k < MAX_KEYS; k++) {
                final int source = Generate.range(0, 3).generate(in);
                final int direction = Generate.range(0, 1).generate(in);
                final int slot = Generate.range(0, 7).generate(in);
                final int uses = Generate.range(1, MAX_USES).generate(in);
                final boolean used = k < keyCount && seen.add(List.of(source, direction, slot));
                final List<Arrival> sequence = new ArrayList<>();
                for (int u = 0; u < MAX_USES; u++) {
                    final int drawn = Generate.range(4, maxEnvelope).generate(in);
                    final int length = Generate.range(0, 9).generate(in) == 9 ? maxEnvelope : drawn;
                    final boolean payloadFirst = Generate.range(0, 1).generate(in) == 1;
                    final boolean duplicate = Generate.range(0, 4).generate(in) == 4;
                    if (!used || u >= uses) {
                        continue;
                    }
                    final int id = messageLengths.size();
                    messageLengths.add(length);
                    final Arrival payload = new Arrival(Kind.PAYLOAD, source, direction, slot, id, 0);
                    final Arrival envelope = new Arrival(Kind.ENVELOPE, source, direction, slot, id, length);
                    sequence.add(payloadFirst ? payload : envelope);
                    if (duplicate) {
                        sequence.add(payloadFirst
                            ? new Arrival(Kind.DUPLICATE_PAYLOAD, source, direction, slot, id, 0)
                            : new Arrival(Kind.DUPLICATE_ENVELOPE, source, direction, slot, id, length));
                    }
                    sequence.add(payloadFirst ? envelope : payload);
                }
                if (used) {
                    perKey.add(sequence);
                }
            }
            final List<Arrival> malformed = new ArrayList<>();
            final int[] malformedAt = new int[MAX_MALFORMED];
            for (int b = 0; b < MAX_MALFORMED; b++) {
                final List<Arrival> ofKey = perKey.get(Generate.range(0, MAX_KEYS - 1).generate(in) % perKey.size());
                malformedAt[b] = Generate.range(0, 1000).generate(in);
                final int tooLong = Generate.range(maxEnvelope + 1, maxEnvelope + 64).generate(in);
                final int negative = Generate.range(Integer.MIN_VALUE, -1).generate(in);
                final int length = switch (Generate.range(0, 2).generate(in)) {
                    case 0 -> tooLong;
                    case 1 -> -1;
                    default -> negative;
                };
                final Arrival any = ofKey.getFirst();
                malformed.add(new Arrival(Kind.MALFORMED_ENVELOPE, any.source(), any.direction(), any.slot(), -1,
                    length));
            }
            final List<Arrival> arrivals = new ArrayList<>();
            final int[] next = new int[perKey.size()];
            final List<Integer> open = new ArrayList<>();
            for (int k = 0; k < perKey.size(); k++) {
                open.add(k);
            }
            while (!open.isEmpty()) {
                final int pick = Generate.range(0, open.size() - 1).generate(in);
                final int k = open.get(pick);
                arrivals.add(perKey.get(k).get(next[k]++));
                if (next[k] == perKey.get(k).size()) {
                    open.remove(pick);
                }
            }
            for (int b = 0; b < malformedCount; b++) {
                arrivals.add(malformedAt[b] * arrivals.size() / 1000, malformed.get(b));
            }
            return new Schedule(initialCapacity, maxEnvelope,
                messageLengths.stream().mapToInt(Integer::intValue).toArray(), arrivals);
        };
    }

    /**
     * Replays a schedule: each message's first arrival is STORED, its second COMPLETE (the dispatch: exactly once, with
     * the envelope bytes that were sent), duplicates and malformed envelopes are counted and never dispatched, and the
     * table is empty at the end. The conduit's receive buffer is scribbled over after every call, as its reuse would.
     */
    @Test
    void everyMessageIsDispatchedExactlyOnceAtItsSecondArrival() {
        qt().withExamples(2000).forAll(schedules()).checkAssert(schedule -> {
            final ReassemblyTable table = new ReassemblyTable(schedule.initialCapacity(), schedule.maxEnvelope());
            final int messages = schedule.envelopeLength().length;
            final int[] arrived = new int[messages];
            final int[] dispatched = new int[messages];
            final UnsafeBuffer receive = new UnsafeBuffer(new byte[schedule.maxEnvelope() + 128]);
            int duplicates = 0;
            int malformed = 0;
            for (int i = 0; i < schedule.arrivals().size(); i++) {
                final Arrival a = schedule.arrivals().get(i);
                final String where = "arrival " + i + " " + a;
                final int offset = 8 + i % 32;
                switch (a.kind()) {
                    case PAYLOAD -> {
                        final int code = table.onPayload(a.source(), a.direction(), a.slot());
                        if (arrived[a.message()]++ == 0) {
                            assertEquals("STORED", name(code), where);
                        } else {
                            assertEquals("COMPLETE", name(code), where);
                            dispatched[a.message()]++;
                            final byte[] got = new byte[table.storedEnvelopeLength()];
                            table.storedEnvelope().getBytes(0, got);
                            assertArrayEquals(envelope(a.message(), schedule.envelopeLength()[a.message()]), got,
                                where + ": the stored envelope is the one sent");
                        }
                    }
                    case ENVELOPE -> {
                        receive.putBytes(offset, envelope(a.message(), a.length()));
                        final int code = table.onEnvelope(a.source(), a.direction(), a.slot(), receive, offset,
                            a.length());
                        if (arrived[a.message()]++ == 0) {
                            assertEquals("STORED", name(code), where);
                        } else {
                            assertEquals("COMPLETE", name(code), where);
                            dispatched[a.message()]++;
                        }
                    }
                    case DUPLICATE_PAYLOAD -> {
                        assertEquals("DUPLICATE", name(table.onPayload(a.source(), a.direction(), a.slot())),
                            where);
                        duplicates++;
                    }
                    case DUPLICATE_ENVELOPE -> {
                        // different bytes: a dropped duplicate must not replace the stored envelope
                        receive.putBytes(offset, envelope(~a.message(), a.length()));
                        assertEquals("DUPLICATE",
                            name(table.onEnvelope(a.source(), a.direction(), a.slot(), receive, offset, a.length())),
                            where);
                        duplicates++;
                    }
                    case MALFORMED_ENVELOPE -> {
                        assertEquals("MALFORMED",
                            name(table.onEnvelope(a.source(), a.direction(), a.slot(), receive, 0, a.length())), where);
                        malformed++;
                    }
                }
                receive.setMemory(0, receive.capacity(), (byte) 0x5a);
            }
            for (int m = 0; m < messages; m++) {
                assertEquals(1, dispatched[m], "message " + m + " dispatched " + dispatched[m] + " times");
            }
            assertEquals(duplicates, table.duplicates(), "duplicates counted");
            assertEquals(malformed, table.malformed(), "malformed envelopes counted");
            assertEquals(0, table.size(), "entries left when traffic stopped");
        });
    }

    /**
     * One key recycled for message after message, each in either order: the view of a completed envelope shows that
     * message's bytes, never an earlier one left in the same slab.
     */
    @Test
    void aKeyIsReusableOnceItsPairIsMatched() {
        final Gen<boolean[]> orders = in -> {
            final boolean[] payloadFirst = new boolean[Generate.range(1, 200).generate(in)];
            for (int i = 0; i < payloadFirst.length; i++) {
                payloadFirst[i] = Generate.booleans().generate(in);
            }
            return payloadFirst;
        };
        qt().withExamples(300).forAll(orders.describedAs(Arrays::toString)).checkAssert(payloadFirst -> {
            final ReassemblyTable table = new ReassemblyTable(1, 64);
            final UnsafeBuffer receive = new UnsafeBuffer(new byte[64]);
            for (int m = 0; m < payloadFirst.length; m++) {
                final int length = 4 + m % 61;
                receive.putBytes(0, envelope(m, length));
                if (payloadFirst[m]) {
                    assertEquals("STORED", name(table.onPayload(5, 1, 3)), "message " + m);
                    assertEquals("COMPLETE", name(table.onEnvelope(5, 1, 3, receive, 0, length)),
                        "message " + m);
                } else {
                    assertEquals("STORED", name(table.onEnvelope(5, 1, 3, receive, 0, length)),
                        "message " + m);
                    receive.setMemory(0, 64, (byte) 0);
                    assertEquals("COMPLETE", name(table.onPayload(5, 1, 3)), "message " + m);
                    final byte[] got = new byte[table.storedEnvelopeLength()];
                    table.storedEnvelope().getBytes(0, got);
                    assertArrayEquals(envelope(m, length), got, "message " + m);
                }
                assertEquals(0, table.size());
            }
            assertEquals(1, table.capacity(), "one key in flight at a time never grows the table");
        });
    }
}
