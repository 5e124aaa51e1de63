package org.gexj.testkit.emu;

import org.gexj.Lc;
import org.gexj.am.Am;
import org.gexj.am.AmHandler;
import org.gexj.launch.InProcessJob;
import org.gexj.testkit.Patterns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The whole AM Long engine through emu, under delivery orders chosen by a seed (reordered, held back, with duplicate
 * tags): every Long request and its Long reply run their handler exactly once, after the payload is in place, with
 * the right args, source, destination offset and bytes, and the reassembly table is empty at quiescence. A failure
 * prints the schedule: seed, ranks, protocol and the messages.
 */
class AmLongEngineProperties {
    /** Per message: each request lands in its own 4 KiB of the target's segment, each reply in the upper half. */
    private static final int SLOT = 4096;
    private static final long SEGMENT = 2L << 20;
    /** Handlers are registered for every arity 0..16. */
    private static final int ARITIES = 17;

    record Msg(int from, int to, int size, int nargs, boolean reply) {
        @Override
        public String toString() {
            return from + "->" + to + " " + size + "B/" + nargs + "args" + (reply ? "+reply" : "");
        }
    }

    record Schedule(long seed, int ranks, String protocol, boolean duplicates, List<Msg> msgs) {
        @Override
        public String toString() {
            return "Schedule[seed=" + seed + ", ranks=" + ranks + ", protocol=" + protocol + ", duplicateTags="
                + duplicates + ", msgs=" + msgs + "]";
        }
    }

    private static Gen<Schedule> schedules() {
        final Gen<Integer> ranks = integers().between(2, 4);
        final Gen<String> protocol = Generate.pick(List.of("reassembly", "putsyncsend", "packed"));
        final Gen<Msg> msg = integers().between(0, 3).zip(integers().between(0, 3),
            Generate.frequency(org.quicktheories.api.Pair.of(3, integers().between(0, SLOT)),
                org.quicktheories.api.Pair.of(1, Generate.pick(List.of(0, 1, 64, 65, SLOT)))),
            integers().between(0, 16), booleans().all(), Msg::new);
        return longs().all().zip(ranks, protocol, booleans().all(), lists().of(msg).ofSizeBetween(1, 40),
            (seed, n, p, dup, ms) -> new Schedule(seed, n, p, dup,
                ms.stream().map(m -> new Msg(m.from() % n, m.to() % n, p.equals("packed") ? Math.min(m.size(), 64)
                    : m.size(), m.nargs(), m.reply())).toList()));
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void everyLongHandlerRunsOnceAfterItsPayloadInAnyDeliveryOrder() {
        qt().withExamples(30).withShrinkCycles(40).forAll(schedules()).checkAssert(AmLongEngineProperties::run);
    }

    private static int[] argsOf(int index, int nargs) {
        final int[] a = new int[nargs];
        for (int i = 0; i < nargs; i++) {
            a[i] = index * 100 + i;
        }
        return a;
    }

    private static void run(Schedule s) {
        final Map<String, String> env = Map.of("GEX_CONDUIT", "emu", "GEX_EMU_SEED", Long.toString(s.seed()),
            "GEX_AMLONG_PROTOCOL", s.protocol(), "GEX_AMLONG_PACKED_MAX", "64",
            "GEX_EMU_DUPLICATE_TAGS", s.duplicates() ? "0.3" : "0");
        final List<Msg> msgs = s.msgs();
        final List<String> errors = new CopyOnWriteArrayList<>();
        // [i]: runs of request i's handler; [msgs.size() + i]: of its reply's
        final AtomicIntegerArray runs = new AtomicIntegerArray(2 * msgs.size());
        InProcessJob.run(s.ranks(), Duration.ofSeconds(20), env, client -> {
            final Am am = Am.of(client);
            final MemorySegment segment = client.attachSegment(SEGMENT).memory();
            final int me = client.rank();
            final int[] replyHandler = new int[ARITIES];
            final int[] requestHandler = new int[ARITIES];
            for (int nargs = 0; nargs < ARITIES; nargs++) {
                final int n = nargs;
                replyHandler[n] = am.register(AmHandler.longReply(n, (t, p, a) -> {
                    final int i = check(errors, "reply", me, t.sourceRank(), p.segmentOffset(), p.length(), a, n,
                        segment, msgs, true);
                    if (i >= 0) {
                        runs.incrementAndGet(msgs.size() + i);
                    }
                }));
                requestHandler[n] = am.register(AmHandler.longRequest(n, (t, p, a) -> {
                    final int i = check(errors, "request", me, t.sourceRank(), p.segmentOffset(), p.length(), a, n,
                        segment, msgs, false);
                    if (i < 0) {
                        return;
                    }
                    runs.incrementAndGet(i);
                    final Msg m = msgs.get(i);
                    if (m.reply()) {
                        final long from = SEGMENT / 2 + (long) i * SLOT;
                        Patterns.fill(segment, from, m.size(), seedOf(i, true));
                        t.replyLong(replyHandler[n], segment, from, m.size(), SEGMENT / 2 + (long) i * SLOT, Lc.NOW, 0,
                            argsOf(i, n), n);
                    }
                }));
            }
            client.barrier();
            final MemorySegment src = Arena.ofShared().allocate(SLOT);
            int expected = 0;
            for (int i = 0; i < msgs.size(); i++) {
                final Msg m = msgs.get(i);
                if (m.from() == me) {
                    Patterns.fill(src, 0, m.size(), seedOf(i, false));
                    am.requestLong(m.to(), requestHandler[m.nargs()], src, 0, m.size(), (long) i * SLOT, Lc.NOW, 0,
                        argsOf(i, m.nargs()), m.nargs());
                    if (m.reply()) {
                        expected++;
                    }
                }
                if (m.to() == me) {
                    expected++;
                }
            }
            final int mine = expected;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received(runs, msgs, me) < mine && System.nanoTime() < deadline) {
                client.poll();
            }
            client.barrier();
            if (am.pendingLongReassemblies() != 0) {
                errors.add("rank " + me + ": " + am.pendingLongReassemblies() + " reassemblies pending at quiescence");
            }
        });
        for (int i = 0; i < msgs.size(); i++) {
            if (runs.get(i) != 1) {
                errors.add("request " + i + " (" + msgs.get(i) + ") ran " + runs.get(i) + " times");
            }
            if (runs.get(msgs.size() + i) != (msgs.get(i).reply() ? 1 : 0)) {
                errors.add("reply " + i + " (" + msgs.get(i) + ") ran " + runs.get(msgs.size() + i) + " times");
            }
        }
        assertEquals(List.of(), errors, s.toString());
    }

    /** Handlers of this rank that ran: requests it received and replies to its requests. */
    private static int received(AtomicIntegerArray runs, List<Msg> msgs, int me) {
        int n = 0;
        for (int i = 0; i < msgs.size(); i++) {
            if (msgs.get(i).to() == me) {
                n += runs.get(i);
            }
            if (msgs.get(i).from() == me) {
                n += runs.get(msgs.size() + i);
            }
        }
        return n;
    }

    private static int seedOf(int index, boolean reply) {
        return index * 2 + (reply ? 1 : 0);
    }

    /** @return the message's index if everything about it is right, else -1 with the errors noted */
    private static int check(List<String> errors, String what, int me, int source, long dest, long length,
                             org.gexj.am.Args a, int nargs, MemorySegment segment, List<Msg> msgs, boolean reply) {
        final int i = nargs > 0 ? a.get(0) / 100 : (int) ((reply ? dest - SEGMENT / 2 : dest) / SLOT);
        if (i < 0 || i >= msgs.size()) {
            errors.add(what + " at " + dest + ": no such message " + i);
            return -1;
        }
        final Msg m = msgs.get(i);
        final int expectedSource = reply ? m.to() : m.from();
        final int expectedTarget = reply ? m.from() : m.to();
        final long expectedDest = (reply ? SEGMENT / 2 : 0) + (long) i * SLOT;
        if (source != expectedSource || me != expectedTarget || dest != expectedDest || length != m.size()) {
            errors.add(what + " " + i + " (" + m + "): source " + source + ", at rank " + me + ", dest " + dest
                + ", length " + length);
            return -1;
        }
        final int[] args = argsOf(i, nargs);
        for (int k = 0; k < nargs; k++) {
            if (a.get(k) != args[k]) {
                errors.add(what + " " + i + ": arg " + k + " is " + a.get(k));
                return -1;
            }
        }
        final long mismatch = Patterns.firstMismatch(segment, dest, length, seedOf(i, reply));
        if (mismatch >= 0) {
            errors.add(what + " " + i + " (" + m + "): payload not in place, byte " + mismatch + " differs");
            return -1;
        }
        return i;
    }
}
