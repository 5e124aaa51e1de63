package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.gexj.rma.AtomicOp.ADD;
import static org.gexj.rma.AtomicOp.CAS;
import static org.gexj.rma.AtomicOp.FADD;
import static org.gexj.rma.AtomicOp.FCAS;
import static org.gexj.rma.AtomicOp.GET;
import static org.gexj.rma.AtomicOp.SET;

/**
 * What {@link TestRatomic}'s tests share: the rank's state, the type and domain under test, GASNet's blocking and
 * randomized operation macros ({@code _TEST_OP_BLOCKING}, {@code _TEST_ROP}, {@code _TEST_OP_SET}), and test.h's
 * random numbers and messages.
 */
abstract class RatomicRun {
    /** The operations GASNet's {@code _TEST_OP_SET} can emulate SET with. */
    static final Set<AtomicOp> SET_OPS = EnumSet.of(SET, ADD, FADD, CAS, FCAS);

    final Client client;
    final PrintStream out;
    final int iters;
    final int myrank;
    final int numranks;
    final boolean polite;
    final MemorySegment result = Arena.ofAuto().allocate(8, 8);
    /** GASNet's {@code static int once} of each ERR site that reports only its first error. */
    final Set<String> once = new HashSet<>();
    Random rng;
    int peer;
    int neighbor;
    int testErrs;
    boolean prevFail;
    int failures;
    // the type under test, its domain, and the domain's operations
    RatomicType t;
    AtomicDomain ad;
    Set<AtomicOp> ops;

    RatomicRun(Client client, PrintStream out, int iters) {
        this.client = client;
        this.out = out;
        this.iters = iters;
        this.myrank = client.rank();
        this.numranks = client.size();
        // GASNet's TEST_SET_WAITMODE(1): yield while spinning when the ranks outnumber the cores
        this.polite = numranks > Runtime.getRuntime().availableProcessors();
    }

    // ------------------------------------------------------------------------------------------ operations

    /** GASNet's _TEST_OP_BLOCKING: NB awaited or NBI then NBI_Wait, at random. @return the value fetched, if any */
    final long blocking(int tgt, long offset, AtomicOp op, long a, long b, int flags) {
        if (oneIn(2)) {
            t.nb(ad, result, tgt, offset, op, a, b, flags).await();
        } else {
            t.nbi(ad, result, tgt, offset, op, a, b, flags);
            client.nbiWait(op.category());
        }
        return op.fetching() ? t.read(result) : 0;
    }

    /**
     * GASNet's _TEST_ROP on offset 0 of {@code tgt}: NB or NBI, with or without IMMEDIATE (retried without it if it
     * gave up), at random. GASNet also targets by job rank one time in four: GEX/J's ranks are job ranks.
     */
    final long rop(int tgt, AtomicOp op, long a, long b) {
        int flags = oneIn(2) ? Flags.IMMEDIATE : 0;
        if (oneIn(2)) {
            Event ev;
            while ((ev = t.nb(ad, result, tgt, 0, op, a, b, flags)) == null) {
                assertAlways((flags & Flags.IMMEDIATE) != 0, "flags & GEX_FLAG_IMMEDIATE");
                flags &= ~Flags.IMMEDIATE;
            }
            ev.await();
        } else {
            while (t.nbi(ad, result, tgt, 0, op, a, b, flags) != 0) {
                assertAlways((flags & Flags.IMMEDIATE) != 0, "flags & GEX_FLAG_IMMEDIATE");
                flags &= ~Flags.IMMEDIATE;
            }
            client.nbiWait(op.category());
        }
        return op.fetching() ? t.read(result) : 0;
    }

    /** GASNet's _TEST_OP_SET: SET, or GET then (F)ADD or (F)CAS if the domain has no SET (no concurrent access). */
    final void opSet(int tgt, long offset, long val, int flags) {
        if (ops.contains(SET)) {
            blocking(tgt, offset, SET, val, 0, flags);
        } else if (!Collections.disjoint(ops, SET_OPS)) {
            assertAlways(ops.contains(GET), "ops & GEX_OP_GET");
            final long get = blocking(tgt, offset, GET, 0, 0, flags);
            // fetching before non-fetching to favor checking of result
            if (ops.contains(FADD)) {
                final long fetch = blocking(tgt, offset, FADD, t.sub(val, get), 0, flags);
                assertAlways(t.eq(fetch, get), "tmp_fetch == tmp_get");
            } else if (ops.contains(FCAS)) {
                final long fetch = blocking(tgt, offset, FCAS, get, val, flags);
                assertAlways(t.eq(fetch, get), "tmp_fetch == tmp_get");
            } else if (ops.contains(ADD)) {
                blocking(tgt, offset, ADD, t.sub(val, get), 0, flags);
            } else {
                blocking(tgt, offset, CAS, get, val, flags);
            }
        } else {
            assertAlways(false, "0 && \"no SET operation\"");
        }
    }

    // ------------------------------------------------------------------------------------------ test.h

    /** TEST_RAND(lo, hi): uniform in [lo, hi]. */
    final long rand(long lo, long hi) {
        return rng.nextLong(lo, hi + 1);
    }

    /** TEST_RAND_ONEIN(p): true one time in p. */
    final boolean oneIn(int p) {
        return rand(1, p) == 1;
    }

    /** MSG: "node r/n text" on every rank. */
    final void msg(String text) {
        out.print("node " + myrank + "/" + numranks + " " + text + "\n");
        out.flush();
    }

    /** MSG0: the text, on rank 0 only. */
    final void msg0(String text) {
        if (myrank == 0) {
            out.print(text + "\n");
            out.flush();
        }
    }

    /** ERR: "ERROR: node r/n text (at file:line)", counted. */
    final void err(String text) {
        testErrs++;
        out.print("ERROR: node " + myrank + "/" + numranks + " " + text + " (at " + caller() + ")\n");
        out.flush();
    }

    /** assert_always: a failure is reported as GASNet's FATALERR does, and ends the job with exit code 1. */
    final void assertAlways(boolean ok, String expr) {
        if (!ok) {
            testErrs++;
            out.print("ERROR: node " + myrank + "/" + numranks + " Assertion failure: " + expr + " (at " + caller()
                + ")\n");
            out.flush();
            client.exit(1);
        }
    }

    /** The file and line of the caller of the method that calls this. */
    static String caller() {
        return StackWalker.getInstance().walk(s -> s.skip(2).findFirst())
            .map(f -> f.getFileName() + ":" + f.getLineNumber()).orElse("?");
    }
}
