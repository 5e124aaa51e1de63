package org.gexj.testkit;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.rma.Rma;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RMA bounds, the first part of {@link RmaConformanceKit}: a bad rank, range, length or completion option is refused
 * with an exception naming it, and nothing is written; a range is accepted exactly when it is in bounds, at the ends of
 * the arithmetic too.
 */
public abstract class RmaBoundsKit extends ConduitKit {
    protected static final int SEGMENT = 256 * 1024;

    @Test
    void outOfBoundsAndBadArgumentsAreRejectedWithNothingWritten() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            final MemorySegment mine = client.attachSegment(SEGMENT).memory();
            mine.fill((byte) 9);
            final Marker marker = new Marker(Am.of(client));
            client.barrier();
            final int peer = (client.rank() + 1) % 2;
            final MemorySegment src = Arena.ofAuto().allocate(1024);
            src.fill((byte) 1);
            final String limit = String.valueOf(SEGMENT);
            assertMessage(() -> rma.put(peer, SEGMENT - 1, src, 0, 2), limit);
            assertMessage(() -> rma.put(peer, -1, src, 0, 2), "-1");
            assertMessage(() -> rma.putNbi(peer, SEGMENT, src, 0, 1, Lc.NOW), limit);
            assertMessage(() -> rma.putNb(peer, 0, src, 1000, 100, Lc.NOW), "1024");
            assertMessage(() -> rma.putNb(peer, 0, src, 0, 10, Lc.GROUP), "GROUP");
            assertMessage(() -> rma.putNbi(peer, 0, src, 0, 10, Lc.event()), "event");
            assertMessage(() -> rma.put(2, 0, src, 0, 1), "rank 2");
            assertMessage(() -> rma.get(src, 0, peer, SEGMENT - 10, 11), limit);
            assertMessage(() -> rma.get(src, 1020, peer, 0, 8), "1024");
            assertMessage(() -> rma.put(peer, 0, src, 0, -1), "-1");
            // over AM a rejected put that was sent anyway lands only when this rank runs its handler: before the
            // marker that follows it (or, unordered, soon after)
            marker.send(peer);
            marker.await(client, 1);
            client.barrier();
            for (long i = 0; i < SEGMENT; i++) {
                if (mine.get(ValueLayout.JAVA_BYTE, i) != 9) {
                    throw new AssertionError("segment byte " + i + " changed by a rejected call");
                }
            }
            client.barrier();
        });
    }

    /** Offsets and lengths at the ends of the ranges and of the arithmetic: where a combined check could go wrong. */
    private static final long[] EDGES = {Long.MIN_VALUE, -(1L << 62), -1, 0, 1, 1023, 1024, SEGMENT - 1, SEGMENT,
        SEGMENT + 1, (1L << 62) - 1, 1L << 62, Long.MAX_VALUE - SEGMENT, Long.MAX_VALUE};

    /**
     * Every combination of edge values for the remote offset, the length and the local offset, with a good rank and
     * two bad ones, through each put and get form in turn: a call is refused with {@link IllegalArgumentException}
     * exactly when a range is out of bounds (the model below is the specification's: {@code [offset, offset + length)}
     * inside the segment or the 1 KiB buffer, 0 bytes allowed at either end), and an accepted call completes.
     */
    @Test
    void rangesAtTheEndsOfTheArithmeticAreAcceptedExactlyWhenInBounds() {
        exactJob(2, client -> {
            final Rma rma = Rma.of(client);
            client.attachSegment(SEGMENT);
            client.barrier();
            if (client.rank() == 0) {
                final MemorySegment local = Arena.ofAuto().allocate(1024);
                final int[] peers = {-1, 1, 2};
                int call = 0;
                for (int peer : peers) {
                    for (long remote : EDGES) {
                        for (long length : EDGES) {
                            for (long offset : EDGES) {
                                final boolean valid = peer == 1 && length >= 0 && remote >= 0 && remote <= SEGMENT
                                    && length <= SEGMENT - remote && offset >= 0 && offset <= local.byteSize() - length;
                                final int form = call++ % 6;
                                final Runnable op = () -> rangeCall(client, rma, form, peer, remote, local, offset,
                                    length);
                                if (valid) {
                                    op.run();
                                } else {
                                    assertThrows(IllegalArgumentException.class, op::run, () -> "form " + form
                                        + ", rank " + peer + ", remote offset " + remote + ", length " + length
                                        + ", local offset " + offset);
                                }
                            }
                        }
                    }
                }
            }
            client.barrier();
        });
    }

    /** Form 0-2: put, putNb, putNbi; 3-5: get, getNb, getNbi; each completed before it returns. */
    private static void rangeCall(Client client, Rma rma, int form, int peer, long remote, MemorySegment local,
                                  long offset, long length) {
        switch (form) {
            case 0 -> rma.put(peer, remote, local, offset, length);
            case 1 -> rma.putNb(peer, remote, local, offset, length, Lc.NOW).await();
            case 2 -> {
                rma.putNbi(peer, remote, local, offset, length, Lc.NOW);
                client.nbiWait(Ec.PUT);
            }
            case 3 -> rma.get(local, offset, peer, remote, length);
            case 4 -> rma.getNb(local, offset, peer, remote, length).await();
            default -> {
                rma.getNbi(local, offset, peer, remote, length);
                client.nbiWait(Ec.GET);
            }
        }
    }

    private static void assertMessage(Runnable r, String mentioned) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(mentioned), "message '" + e.getMessage() + "' should name " + mentioned);
    }
}
