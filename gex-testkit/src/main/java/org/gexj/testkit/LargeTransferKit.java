package org.gexj.testkit;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transfers past 2 GiB, run for real: a put and a get of more than 2 GiB, an AM Long request and reply of more than
 * 2 GiB (or, where the conduit's Long is smaller, its refusal), and a Long of 1 GiB (or the conduit's largest) from
 * and to offsets past 1 GiB that end past 2 GiB, every byte checked. Offsets and lengths are longs everywhere; nothing
 * on the way may wrap more memory than it moves, or a {@code ByteBuffer} of 2 GiB or more. Needs about twice the
 * segment in memory (/dev/shm for smp's segments: {@code ./gexj.sh test} makes room as root).
 */
public abstract class LargeTransferKit extends ConduitKit {
    /** Just past 2 GiB, a whole number of pages. */
    private static final long RMA_BYTES = (2L << 30) + 3 * 4096;
    private static final long SEGMENT = RMA_BYTES + (64 << 10);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /**
     * True if this conduit's AM Long carries more than 2 GiB ({@link Am#maxRequestLong}); false where its Long is
     * smaller by design, which the kit then checks is refused with nothing sent.
     */
    protected boolean longsPastTwoGiB() {
        return true;
    }

    @Override
    protected Duration timeout() {
        return Duration.ofMinutes(4);
    }

    /** The pattern's long at byte {@code at} (a multiple of 8) of a transfer tagged {@code tag}. */
    private static long pattern(long tag, long at) {
        return at * 0x9E3779B97F4A7C15L ^ tag;
    }

    private static void fill(MemorySegment m, long offset, long bytes, long tag) {
        for (long at = 0; at + 8 <= bytes; at += 8) {
            m.set(LONG, offset + at, pattern(tag, at));
        }
    }

    /** The first byte offset whose long differs from the pattern, or -1. */
    private static long firstMismatch(MemorySegment m, long offset, long bytes, long tag) {
        for (long at = 0; at + 8 <= bytes; at += 8) {
            if (m.get(LONG, offset + at) != pattern(tag, at)) {
                return at;
            }
        }
        return -1;
    }

    private static void assertPattern(MemorySegment m, long offset, long bytes, long tag, String what) {
        final long bad = firstMismatch(m, offset, bytes, tag);
        assertEquals(-1, bad, what + ": first wrong byte offset of " + bytes);
    }

    @Test
    void putAndGetOfMoreThanTwoGiB() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            final MemorySegment mine = client.segment().memory();
            if (client.rank() == 0) {
                fill(mine, 0, RMA_BYTES, 1);
                rma.put(1, 4096, mine, 0, RMA_BYTES);
                mine.asSlice(0, RMA_BYTES).fill((byte) 0);
                rma.get(mine, 8, 1, 4096, RMA_BYTES);
                assertPattern(mine, 8, RMA_BYTES, 1, "get of " + RMA_BYTES + " bytes");
            }
            client.barrier();
            if (client.rank() == 1) {
                assertPattern(mine, 4096, RMA_BYTES, 1, "put of " + RMA_BYTES + " bytes");
            }
            client.barrier();
        });
    }

    @Test
    void longRequestAndReplyOfMoreThanTwoGiB() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final MemorySegment mine = client.segment().memory();
            final long bytes = RMA_BYTES;
            final AtomicLong replied = new AtomicLong(-1);
            final StringBuffer errors = new StringBuffer();
            final int back = am.register(AmHandler.longReply(1, (t, p, a) -> replied.set(p.length())));
            final AtomicLong requested = new AtomicLong(-1);
            final int h = am.register(AmHandler.longRequest(1, (t, p, a) -> {
                requested.set(p.length());
                // read through the payload view, past 2 GiB as well
                for (long at : new long[] {0, (2L << 30) + 8, bytes - 8}) {
                    if (p.getLong(at) != pattern(3, at)) {
                        errors.append("payload long at ").append(at).append(" is wrong; ");
                    }
                }
                if (p.length() != bytes || p.segmentOffset() != 4096) {
                    errors.append("payload of ").append(p.length()).append(" bytes at ").append(p.segmentOffset())
                        .append(", expected ").append(bytes).append(" at 4096; ");
                }
                t.replyLong(back, mine, p.segmentOffset(), p.length(), 16, Lc.NOW, a.get(0));
            }));
            client.barrier();
            if (!longsPastTwoGiB()) {
                final long max = am.maxRequestLong(1, 1);
                if (client.rank() == 0) {
                    final var e = assertThrows(IllegalArgumentException.class,
                        () -> am.requestLong(1, h, mine, 8, bytes, 4096, Lc.NOW, 7));
                    assertTrue(e.getMessage().contains(String.valueOf(max)),
                        "the refusal names the limit " + max + ": " + e.getMessage());
                }
                client.barrier();
                return;
            }
            assertTrue(am.maxRequestLong(1, 1) >= bytes && am.maxReplyLong(1, 1) >= bytes, "maxRequestLong "
                + am.maxRequestLong(1, 1) + ", maxReplyLong " + am.maxReplyLong(1, 1) + " below " + bytes);
            if (client.rank() == 0) {
                fill(mine, 8, bytes, 3);
                assertEquals(Am.OK, am.requestLong(1, h, mine, 8, bytes, 4096, Lc.NOW, 7));
                // the reply lands 8 bytes below the request's source, so what was there before cannot pass for it
                final long end = System.nanoTime() + 180_000_000_000L;
                while (replied.get() < 0 && System.nanoTime() < end) {
                    client.poll();
                }
                assertEquals(bytes, replied.get(), "the Long reply's payload length");
                assertPattern(mine, 16, bytes, 3, "Long reply of " + bytes + " bytes at 16");
            } else {
                final long end = System.nanoTime() + 180_000_000_000L;
                while (requested.get() < 0 && System.nanoTime() < end) {
                    client.poll();
                }
                assertEquals(bytes, requested.get(), "the Long request's payload length");
                assertPattern(mine, 4096, bytes, 3, "Long request of " + bytes + " bytes at 4096");
            }
            client.barrier();
            assertEquals("", errors.toString());
        });
    }

    @Test
    void longOfOneGiBFromAndToOffsetsPastOneGiB() {
        exactJob(2, client -> {
            final Am am = Am.of(client);
            client.attachSegment(SEGMENT);
            final long bytes = Math.min(am.maxRequestLong(1, 1), 1L << 30) & ~7L;
            final long at = SEGMENT - bytes; // ends at the segment's end, past 2 GiB
            final MemorySegment mine = client.segment().memory();
            final AtomicLong landed = new AtomicLong(-1);
            final int h = am.register(AmHandler.longRequest(1, (t, p, a) -> landed.set(p.length())));
            client.barrier();
            if (client.rank() == 0) {
                fill(mine, at, bytes, 2);
                assertEquals(Am.OK, am.requestLong(1, h, mine, at, bytes, at, Lc.NOW, 7));
            } else {
                final long end = System.nanoTime() + 180_000_000_000L;
                while (landed.get() < 0 && System.nanoTime() < end) {
                    client.poll();
                }
                assertEquals(bytes, landed.get(), "the Long's payload length, " + bytes + " requested");
                assertPattern(mine, at, bytes, 2, "Long of " + bytes + " bytes at " + at);
            }
            client.barrier();
        });
    }
}
