package org.gexj.testrma;

import org.gexj.Client;
import org.gexj.Ec;
import org.gexj.rma.AtomicDomain;
import org.gexj.rma.AtomicOp;
import org.gexj.rma.AtomicType;

import java.io.PrintStream;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.gexj.rma.AtomicOp.ADD;
import static org.gexj.rma.AtomicOp.CAS;
import static org.gexj.rma.AtomicOp.FADD;
import static org.gexj.rma.AtomicOp.FCAS;
import static org.gexj.rma.AtomicOp.FXOR;
import static org.gexj.rma.AtomicOp.GET;
import static org.gexj.rma.AtomicOp.SET;
import static org.gexj.rma.AtomicOp.SWAP;
import static org.gexj.rma.AtomicOp.XOR;

/**
 * GASNet's testratomic: the correctness test of remote atomics ({@link AtomicDomain}), for each type in GASNet's order
 * (uint32_t, int32_t, uint64_t, int64_t, float, double): the MY_RANK/MY_NBRHD flags test, the producer/consumer ring
 * tests (ACQ/REL signalling with SET, FCAS, ADD/FADD, SWAP, XOR/FXOR), the two contended central-counter tests, and the
 * randomized test of every operation against a mirror of the expected value. Same command line
 * ({@code testratomic (iters) (seed0)}), sections, checks, error counting and output lines as GASNet's; a failed
 * {@code assert_always} prints its error and ends the job with exit code 1.
 *
 * <p>Differences from GASNet's: GEX/J has no teams yet, so the runs on odd/even and neighbourhood subteams are
 * replaced by one line saying so; every rank is in one neighbourhood as far as this test goes (no per-neighbourhood
 * rings: GASNet's {@code multinbrhd} is false); the "conduit-specialized ops" randomized subtest is skipped, as GASNet
 * skips it on conduits without native atomics; ranks are job ranks, so GASNet's random choice of
 * {@code GEX_FLAG_RANK_IS_JOBRANK} has no counterpart. The random numbers come from {@link Random} seeded with
 * rank + seed; a seed of 0 is derived from the time on rank 0, which broadcasts it through its segment. The error
 * counts are summed with an atomic ADD into rank 0's segment.
 */
public final class TestRatomic extends RatomicRun {
    /** Where rank 0 keeps the broadcast seed and the error sum: past the 16 bytes the tests use. */
    private static final long SEED_AT = 64;
    private static final long ERRS_AT = 72;
    /** The non-fetching operations in GASNet's numbering (_GEX_OP_AND = 0 to _GEX_OP_CAS = 11). */
    private static final List<AtomicOp> GEX_OPS = List.of(AtomicOp.AND, AtomicOp.OR, XOR, ADD, AtomicOp.SUB,
        AtomicOp.MULT, AtomicOp.MIN, AtomicOp.MAX, AtomicOp.INC, AtomicOp.DEC, SET, CAS);

    /** The randomized test's expected value at the peer. */
    private long mirror;

    private TestRatomic(Client client, PrintStream out, int iters) {
        super(client, out, iters);
    }

    public static void main(String[] args) {
        RmaBench.main("TESTRATOMIC", args, TestRatomic::run);
    }

    /** Runs testratomic on this rank (collective). @return 0, or 1 if any rank detected an error or for -h */
    public static int run(Client client, String[] args, PrintStream out) {
        for (String a : args) {
            if (a.equals("-h") || a.equals("--h") || a.equals("-help") || a.equals("--help")) {
                if (client.rank() == 0) {
                    out.println("Usage: testratomic (iters) (seed0)");
                    out.flush();
                }
                return 1;
            }
        }
        int iters = args.length > 0 ? atoi(args[0]) : 0;
        if (iters == 0) {
            iters = 1000;
        }
        final int seed = args.length > 1 ? atoi(args[1]) : 0;
        return new TestRatomic(client, out, iters).all(seed);
    }

    /** C's atoi: leading blanks, a sign, digits up to the first other character; 0 if none. */
    static int atoi(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        final boolean negative = i < s.length() && s.charAt(i) == '-';
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            i++;
        }
        long v = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9' && v <= Integer.MAX_VALUE) {
            v = v * 10 + (s.charAt(i++) - '0');
        }
        return (int) (negative ? -v : v);
    }

    private int all(int seedArg) {
        client.attachSegment(Client.PAGE_SIZE);
        // GASNet's TEST_BCAST of the seed and its ReduceToAll of the error counts, through rank 0's segment
        final AtomicDomain util = AtomicDomain.create(client, AtomicType.INT64, EnumSet.of(SET, GET, ADD), 0);
        int seed = seedArg;
        if (myrank == 0) {
            final long derived = (System.nanoTime() / 1000) & 0xFFFF;
            util.opLong(0, SEED_AT, SET, seed == 0 ? derived : seed, 0, AtomicDomain.MY_RANK);
            util.opLong(0, ERRS_AT, SET, 0, 0, AtomicDomain.MY_RANK);
        }
        client.barrier();
        if (seed == 0) {
            seed = (int) util.opLong(0, SEED_AT, GET, 0, 0, 0);
        }
        rng = new Random(Integer.toUnsignedLong(myrank + seed));
        msg("Running " + iters + " iterations of remote atomics tests (seed = "
            + Integer.toUnsignedString(myrank + seed) + ").");

        client.barrier();
        msg0("Running tests using all ranks");
        doall();

        if (numranks > 1) {
            client.barrier();
            msg0("Skipping tests using odd/even subteams: GEX/J has no teams yet");
        }
        // (GASNet's nbrhd subteams run only with several neighbourhoods: never here)

        util.opLong(0, ERRS_AT, ADD, testErrs, 0, 0);
        client.barrier();
        final int errs = (int) util.opLong(0, ERRS_AT, GET, 0, 0, 0);
        msg0("done. (detected " + errs + " errors)");
        client.barrier();
        util.close();
        return errs != 0 ? 1 : 0;
    }

    private void doall() {
        peer = (myrank + 1) % numranks;
        // the next rank of this one's neighbourhood: all ranks on smp, this rank alone elsewhere
        neighbor = client.capabilities().crossMapped() ? (myrank + 1) % numranks : myrank;
        for (RatomicType type : RatomicType.values()) {
            doit(type);
        }
    }

    /** Creates this type's domain with {@code domainOps}, then GASNet's BARRIER after gex_AD_Create. */
    private void open(Set<AtomicOp> domainOps) {
        ad = AtomicDomain.create(client, t.atomic, domainOps, 0);
        ops = ad.ops();
        client.barrier();
    }

    private void doit(RatomicType type) {
        t = type;
        final EnumSet<AtomicOp> allOps = EnumSet.complementOf(EnumSet.of(AtomicOp.AND, AtomicOp.OR, XOR,
            AtomicOp.FAND, AtomicOp.FOR, FXOR));
        if (t.isInt) {
            allOps.addAll(EnumSet.allOf(AtomicOp.class));
        }
        msg0("  Tests for type " + t.cName);

        // Test of AD-specific flags
        open(EnumSet.of(SET, FADD));
        testFlags();
        ad.close();

        // Max values for "ring", "cntr", "fcas" tests
        final long maxU64 = t.maxU64();
        final int maxInt = (int) (Long.compareUnsigned(Integer.MAX_VALUE, maxU64) < 0 ? Integer.MAX_VALUE : maxU64);

        // Tests of ACQ/REL signaling on a ring. GASNet's initializing op (test_op_set) is SET except on ibv, which
        // alone runs the SWAP and XOR rings without SET as well.
        ringTest(SET, false);
        ringTest(FCAS, false);
        ringTest(ADD, false);
        ringTest(FCAS, true);
        ringTest(ADD, true);
        ringTest(SWAP, true);
        if (t.isInt) {
            ringTest(XOR, true);
        }

        // Test of contended (F)ADD/(F)INC (central counter)
        open(EnumSet.of(GET, ADD, FADD, AtomicOp.INC, AtomicOp.FINC));
        testCntr(maxInt);
        ad.close();

        // Test of contended FCAS (central counter)
        open(EnumSet.of(GET, FCAS));
        testFcas(maxInt);
        ad.close();

        // Range of random numbers: for x in [lo,hi] 2*x*x must be exact in the type
        final long lo = t.lo();
        final long hi = t.hi();
        if (t.isInt) { // CHECK_LIMIT: 2*hi*hi does not overflow, but the same for hi+1 does
            assertAlways(t.lt(t.of(hi), t.of(2 * hi * hi)), "(type)(2*hi*hi) > hi");
            assertAlways(t.lt(t.of(2 * (hi + 1) * (hi + 1)), t.of(hi)), "(type)(2*(hi+1)*(hi+1)) < hi");
        }

        // Randomized testing: subtest 0 only. Subtest 1, "conduit-specialized ops", is for conduits with native
        // atomics, and GASNet skips it (continue) on the others; no GEX/J conduit offloads atomics yet.
        open(allOps);
        testRand(lo, hi, "");
        client.barrier();
        ad.close();
    }

    // ------------------------------------------------------------------------------------------ randomized test

    /** TEST_ROP_NC: the operation on the peer, if the domain has it ({@code name}, its SUBTEST, is never reported). */
    private void ropNc(String name, AtomicOp op, long a, long b) {
        if (ops.contains(op)) {
            rop(peer, op, a, b);
        }
    }

    /** TEST_ROP_FETCH_NC: as {@link #ropNc}, and the value fetched must be the mirror. */
    private void ropFetchNc(String name, AtomicOp op, long a, long b) {
        if (!ops.contains(op)) {
            return;
        }
        final long fetch = rop(peer, op, a, b);
        prevFail = !t.eq(fetch, mirror);
        if (prevFail) {
            ++failures;
            if (once.add(t + " rand " + name)) {
                err("Valued fetched by \"" + name + "\" did not match expected value (got " + t.toInt(fetch)
                    + ", want " + t.toInt(mirror) + ")\n");
            }
        }
    }

    /** _TEST_ROP_MIRROR: the new expected value, stored at the peer if (and only if) the previous check failed. */
    private void updateMirror(AtomicOp op, long newval) {
        if (!ops.contains(op)) {
            return;
        }
        mirror = newval;
        if (prevFail) {
            opSet(peer, 0, mirror, 0);
        }
        prevFail = false;
    }

    /** TEST_ROP: {@link #ropNc}, then the mirror becomes {@code newval} (which depends on no result). */
    private void ropUpdate(String name, AtomicOp op, long a, long b, long newval) {
        ropNc(name, op, a, b);
        updateMirror(op, newval);
    }

    /** TEST_ROP_FETCH: {@link #ropFetchNc}, then the mirror becomes {@code newval}. */
    private void ropFetch(String name, AtomicOp op, long a, long b, long newval) {
        ropFetchNc(name, op, a, b);
        updateMirror(op, newval);
    }

    /** A random value of the type in [lo, hi], negated half of the time (GASNet's operands of MIN and MAX). */
    private long randSigned(long lo, long hi) {
        final long v = t.of(rand(lo, hi));
        return oneIn(2) ? v : t.mul(t.of(-1), v);
    }

    private void testRand(long lo, long hi, String msg) {
        mirror = t.of(0);
        final long zero = t.of(0);
        final long one = t.of(1);
        int mask = 0;
        for (AtomicOp op : ops) {
            mask |= 1 << gexOpBit(op);
        }
        msg0("    Randomized ops test with operation set 0x" + Integer.toHexString(mask) + msg);
        for (int i = 0; i < iters; ++i) {
            final long unused = t.of(rand(lo, hi)); // garbage
            // first few iterations are NON-random (0, 1, 2)
            final long x = i <= 2 ? t.of(i) : t.of(rand(lo, hi));
            long y;
            // test_rand1: SET(x), GET(x), SET(0), GET(0)
            opSet(peer, 0, x, 0);
            mirror = x;
            ropFetchNc("GET(x)", GET, unused, unused);
            opSet(peer, 0, zero, 0);
            mirror = zero;
            ropFetchNc("GET(0)", GET, unused, unused);
            // test_rand2
            ropFetch("FINC()", AtomicOp.FINC, unused, unused, t.add(mirror, one));
            ropUpdate("INC()", AtomicOp.INC, unused, unused, t.add(mirror, one));
            ropFetch("FADD(x+1)", FADD, t.add(x, one), unused, t.add(t.add(mirror, x), one));
            ropUpdate("ADD(x+1)", ADD, t.add(x, one), unused, t.add(t.add(mirror, x), one));
            // test_rand3
            ropFetch("FDEC()", AtomicOp.FDEC, unused, unused, t.sub(mirror, one));
            ropUpdate("DEC()", AtomicOp.DEC, unused, unused, t.sub(mirror, one));
            ropFetch("FSUB(x)", AtomicOp.FSUB, x, unused, t.sub(mirror, x));
            ropUpdate("SUB(x)", AtomicOp.SUB, x, unused, t.sub(mirror, x));
            // test_rand4
            ropFetch("FMULT(x)", AtomicOp.FMULT, x, unused, t.mul(mirror, x));
            ropUpdate("MULT(x)", AtomicOp.MULT, x, unused, t.mul(mirror, x));
            // test_rand5
            ropFetch("SWAP(x)", SWAP, x, unused, x);
            ropFetchNc("FCAS(mirror,mirror) - PASS", FCAS, mirror, mirror);
            ropFetchNc("FCAS(mirror+1,0) - FAIL", FCAS, t.add(mirror, one), zero);
            // test_rand6
            y = t.of(rand(lo, hi));
            ropFetch("FCAS(mirror,random) - PASS", FCAS, mirror, y, y);
            do {
                y = t.of(rand(lo, hi));
            } while (t.eq(y, mirror));
            ropFetchNc("FCAS(random,random) - FAIL", FCAS, y, y);
            ropFetchNc("GET(fcas)", GET, unused, unused);
            // test_rand7
            ropNc("CAS(mirror,mirror) - PASS", CAS, mirror, mirror);
            ropFetchNc("GET(cas1)", GET, unused, unused);
            ropNc("CAS(mirror+1,0) - FAIL", CAS, t.add(mirror, one), zero);
            ropFetchNc("GET(cas2)", GET, unused, unused);
            // test_rand8
            y = t.of(rand(lo, hi));
            ropUpdate("CAS(mirror,random) - PASS", CAS, mirror, y, y);
            ropFetchNc("GET(cas3)", GET, unused, unused);
            do {
                y = t.of(rand(lo, hi));
            } while (t.eq(y, mirror));
            ropNc("CAS(random,random) - FAIL", CAS, y, y);
            ropFetchNc("GET(cas4)", GET, unused, unused);
            // test_rand9
            y = randSigned(lo, hi);
            ropUpdate("MIN(random)", AtomicOp.MIN, y, unused, t.min(mirror, y));
            y = randSigned(lo, hi);
            ropFetch("FMIN(random)", AtomicOp.FMIN, y, unused, t.min(mirror, y));
            y = randSigned(lo, hi);
            ropUpdate("MAX(random)", AtomicOp.MAX, y, unused, t.max(mirror, y));
            y = randSigned(lo, hi);
            ropFetch("FMAX(random)", AtomicOp.FMAX, y, unused, t.max(mirror, y));
            if (t.isInt) { // TEST_RAND_BITS1
                y = t.of(rand(lo, hi));
                ropUpdate("AND(random)", AtomicOp.AND, y, unused, t.and(mirror, y));
                y = t.of(rand(lo, hi));
                ropFetch("FAND(random)", AtomicOp.FAND, y, unused, t.and(mirror, y));
                y = t.of(rand(lo, hi));
                ropUpdate("OR(random)", AtomicOp.OR, y, unused, t.or(mirror, y));
                y = t.of(rand(lo, hi));
                ropFetch("FOR(random)", AtomicOp.FOR, y, unused, t.or(mirror, y));
                y = t.of(rand(lo, hi));
                ropUpdate("XOR(random)", XOR, y, unused, t.xor(mirror, y));
                y = t.of(rand(lo, hi));
                ropFetch("FXOR(random)", FXOR, y, unused, t.xor(mirror, y));
            }
            ropFetchNc("GET(final)", GET, unused, unused);
        }
        if (failures != 0) {
            msg("  Total: " + failures + " failures for type " + t.cName);
            failures = 0;
        }
    }

    /** GASNet's bit for {@code op} in a {@code gex_OP_t}, as the operation-set line prints it. */
    private static int gexOpBit(AtomicOp op) {
        // a fetching operation's bit is its twin's + 15 (GEX_OP_TO_FETCHING); GET's is 12 + 15
        return op == GET ? 27 : op.fetching() ? GEX_OPS.indexOf(op.toNonFetching()) + 15 : GEX_OPS.indexOf(op);
    }

    // ------------------------------------------------------------------------------------------ flags, counters

    /** Deterministic testing of the AD_MY_* flags. */
    private void testFlags() {
        final long unusedOperand = t.of(911); // garbage
        msg0("    Flags test");
        // MY_RANK and MY_NBRHD applied to self
        long operand = t.of(myrank + 1);
        t.nb(ad, result, myrank, 0, SET, operand, unusedOperand, AtomicDomain.MY_RANK).await();
        t.nbi(ad, result, myrank, 0, FADD, operand, unusedOperand, AtomicDomain.MY_RANK);
        client.nbiWait(Ec.RMW);
        assertAlways(t.eq(t.read(result), operand), "result == operand");
        t.nb(ad, result, myrank, 0, FADD, operand, unusedOperand, AtomicDomain.MY_NBRHD).await();
        assertAlways(t.eq(t.read(result), t.mul(t.of(2), operand)), "result == 2*operand");
        client.barrier();
        // MY_NBRHD applied to not-self-unless-no-other-valid-choice
        operand = t.of(neighbor + 1);
        t.nbi(ad, result, neighbor, 0, FADD, operand, unusedOperand, AtomicDomain.MY_NBRHD);
        client.nbiWait(Ec.RMW);
        assertAlways(t.eq(t.read(result), t.mul(t.of(3), operand)), "result == 3*operand");
    }

    /** This rank's share of {@code goal} updates. */
    private int share(int goal) {
        return Integer.divideUnsigned(goal, numranks)
            + (Integer.compareUnsigned(myrank, Integer.remainderUnsigned(goal, numranks)) < 0 ? 1 : 0);
    }

    /** The start of a counter test: rank 0 zeroes its counter (GASNet's _TEST_OP_SET). @return the goal */
    private int counterStart(String what, int maxGoal) {
        msg0("    Central-counter concurrent updates test (" + what + ")");
        if (myrank == 0) {
            opSet(0, 0, t.of(0), AtomicDomain.MY_RANK);
        }
        client.barrier();
        return Math.min(iters, maxGoal);
    }

    /** The final check of a counter test: rank 0's counter reached the goal. */
    private void checkGoal(long goal) {
        client.barrier();
        if (myrank == 0) {
            final long got = blocking(0, 0, GET, t.of(911), t.of(911), AtomicDomain.MY_RANK);
            assertAlways(t.eq(got, goal), "result == goal");
        }
    }

    /** (F)ADD/(F)INC race test on rank 0's counter. */
    private void testCntr(int maxGoal) {
        final int goal = counterStart("FADD/ADD/FINC/INC", maxGoal);
        final long goalT = t.of(goal);
        final long unusedOperand = t.of(911); // garbage
        long prevResult = t.of(0);
        int remain = share(goal);
        while (remain != 0) {
            final long res;
            if (oneIn(20)) { // Mix in an occasional GET
                res = rop(0, GET, unusedOperand, unusedOperand);
            } else if (oneIn(2)) {
                // (F)ADD with a small (possibly 0) random increment
                final int maxIncr = 4;
                final int incr = remain < maxIncr ? 1 : (int) rand(0, maxIncr);
                remain -= incr;
                if (oneIn(2)) {
                    res = rop(0, FADD, t.of(incr), unusedOperand);
                } else {
                    rop(0, ADD, t.of(incr), unusedOperand);
                    continue; // skip checks of monotonicity and range
                }
            } else {
                // (F)INC
                remain -= 1;
                if (oneIn(2)) {
                    res = rop(0, AtomicOp.FINC, unusedOperand, unusedOperand);
                } else {
                    rop(0, AtomicOp.INC, unusedOperand, unusedOperand);
                    continue; // skip checks of monotonicity and range
                }
            }
            assertAlways(t.eq(prevResult, t.of(0)) || !t.lt(res, prevResult), "!prev_result || result >= prev_result");
            assertAlways(t.lt(res, goalT), "result < goal");
            prevResult = res;
        }
        checkGoal(goalT);
    }

    /** FCAS race test on rank 0's counter. */
    private void testFcas(int maxGoal) {
        final int goal = counterStart("FCAS", maxGoal);
        final long goalT = t.of(goal);
        final long unusedOperand = t.of(911); // garbage
        long oldval = t.of(0);
        int remain = share(goal);
        while (remain != 0) {
            final int swapped;
            final long res;
            if (oneIn(20)) { // Mix in an occasional GET
                res = rop(0, GET, unusedOperand, unusedOperand);
                swapped = 0;
            } else {
                res = rop(0, FCAS, oldval, t.add(oldval, t.of(1)));
                swapped = t.eq(oldval, res) ? 1 : 0;
            }
            assertAlways(t.eq(oldval, t.of(0)) || !t.lt(res, oldval), "!oldval || result >= oldval");
            assertAlways(t.lt(res, goalT), "result < goal");
            oldval = t.add(res, t.of(swapped));
            remain -= swapped;
        }
        checkGoal(goalT);
    }

    // ------------------------------------------------------------------------------------------ rings

    /**
     * GASNet's RING_TEST: a domain with the ring's operations ({@code op}'s fetching twin for ADD and XOR), SET if
     * {@code addSet}, SET anyway if _TEST_OP_SET needs it, and GET; then the single ring.
     */
    private void ringTest(AtomicOp op, boolean addSet) {
        final EnumSet<AtomicOp> testOps = EnumSet.of(op, op == ADD ? FADD : op == XOR ? FXOR : op);
        if (addSet) {
            testOps.add(SET);
        }
        if (Collections.disjoint(testOps, SET_OPS)) {
            testOps.add(SET); // set_op = test_op_set
        }
        testOps.add(GET);
        open(testOps);
        ring(op);
        ad.close();
    }

    /** Producer/consumer ring test: each rank signals its successor with write(X) + write(Y, REL). */
    private void ring(AtomicOp op) {
        final boolean haveSet = ops.contains(SET);
        final boolean setAdded = haveSet && op != SET;
        msg0("    Producer/consumer single ring test (" + op + (setAdded ? " + SET" : "") + ")");
        final int tgt = peer;
        final int wrap = tgt <= myrank ? 1 : 0;
        final long myX = 0;
        final long myY = t.bytes;
        final long maxVal = t.maxU64();
        long limit = Integer.toUnsignedLong(Integer.divideUnsigned(iters, numranks));
        limit = Math.min(limit, Integer.MAX_VALUE);
        limit = Long.compareUnsigned(limit, maxVal) < 0 ? limit : maxVal;
        // Take steps to test widest possible range, subject to a constraint that low half cannot be zero
        long step = Long.divideUnsigned(maxVal, limit + 1);
        step -= (step & 0xffff_ffffL) != 0 ? 0 : 1;
        // start at 0, except first rank in each ring will start at step
        final long init = t.ofU64(step * (myrank == 0 ? 1 : 0));
        opSet(myrank, myX, init, AtomicDomain.MY_RANK);
        opSet(myrank, myY, init, AtomicDomain.MY_RANK);
        client.barrier();
        // the no-op fetching operation the consumer mixes with GET (none for SET and SWAP)
        final AtomicOp consumeOp = op == FCAS ? FCAS : op == ADD ? FADD : op == XOR ? FXOR : null;
        final long zero = t.of(0);
        for (int i = 0; i < limit; ++i) {
            final long expect = t.mul(t.ofU64(step), t.of(i + 1L));
            long readX;
            long readY;
            // CONSUMER: First OP uses ACQ
            while (true) {
                final int c = consumeOp == null ? 0 : (int) rand(0, 3);
                readY = blocking(myrank, myY, c == 2 || c == 3 ? consumeOp : GET, zero, zero,
                    AtomicDomain.MY_RANK | AtomicDomain.ACQ);
                readX = blocking(myrank, myX, c == 1 || c == 3 ? consumeOp : GET, zero, zero, AtomicDomain.MY_RANK);
                if (t.eq(readY, expect)) {
                    if (t.lt(readX, readY) && once.add(t + " " + op + " newer")) {
                        err("Read Y value " + t.u64(readY) + " newer than Read X value " + t.u64(readX));
                    }
                    break;
                }
                if (!t.eq(readY, t.minusU64(expect, step)) && once.add(t + " " + op + " Y")) {
                    err("Read Y value " + t.u64(readY) + " did not match expected " + t.u64(t.minusU64(expect, step))
                        + " nor previous expected value " + t.u64(expect) + " at iteration " + i);
                }
                if (polite) { // test_yield_if_polite()
                    Thread.yield();
                }
                client.poll();
            }
            if (!t.eq(readX, expect) && once.add(t + " " + op + " X")) {
                err("Read X value " + t.u64(readX) + " did not match expected " + t.u64(expect) + " at iteration "
                    + i);
            }
            // PRODUCER: write(X) + write(Y,REL), mixing SET (if in the domain) with the op the ring is named after
            final long prev = step * (i + wrap);
            final long next = prev + step;
            final long op1 = switch (op) {
                case FCAS -> prev;
                case ADD -> step;
                case XOR -> prev ^ next;
                default -> next; // SET, SWAP
            };
            final int p = op == SET ? 0 : haveSet ? (int) rand(0, 3) : 3;
            final AtomicOp opA = p == 0 || p == 1 ? SET : op;
            final AtomicOp opB = p == 0 || p == 2 ? SET : op;
            final long op2 = t.ofU64(next);
            blocking(tgt, myX, opA, t.ofU64(opA == SET ? next : op1), op2, 0);
            blocking(tgt, myY, opB, t.ofU64(opB == SET ? next : op1), op2, AtomicDomain.REL);
        }
        client.barrier();
    }
}
