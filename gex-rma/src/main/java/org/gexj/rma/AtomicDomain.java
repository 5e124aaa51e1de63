package org.gexj.rma;

import org.agrona.UnsafeApi;
import org.gexj.Client;
import org.gexj.Event;
import org.gexj.Flags;
import org.gexj.Segment;
import org.gexj.am.Am;
import org.gexj.internal.CoreAccess;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * An atomic domain ({@code gex_AD_t}): remote atomic operations of one {@link AtomicType} on values in the segments of
 * the job's ranks, restricted to a declared set of {@link AtomicOp}s. The operations are atomic with respect to each
 * other, and to nothing else: as in GASNet-EX, the program separates phases in which a location is accessed through a
 * domain from phases in which it is accessed otherwise (plain loads and stores, {@link Rma} puts and gets, another
 * domain) by completing the operations and synchronising (a barrier). Where the NIC performs a domain's operations
 * (below), they are atomic with respect to each other only: a plain store or a CPU atomic on the same value at the same
 * time can be lost, as on any RDMA NIC. Elsewhere every operation ends in the CPU's atomic instructions on the target's
 * memory, which happens to make mixing safe there; a program must not rely on it.
 *
 * <p>Each operation comes in three forms, as GASNet's {@code gex_AD_OpNB_<DT>} and {@code gex_AD_OpNBI_<DT>} with a
 * blocking one beside them: {@code opLong}/{@code opDouble} return the target's previous value (for fetching
 * operations; 0 for the others) once complete; {@code ...Nb} stores it into a result buffer and returns an event;
 * {@code ...Nbi} stores it and is completed by {@link Client#nbiWait} with the operation's {@link AtomicOp#category()}
 * ({@code Ec.PUT} for SET, {@code Ec.GET} for GET, else {@code Ec.RMW}) or by an access region. The integer types take
 * the {@code long} forms, the floating-point ones the {@code double} forms. A result is stored in the domain type's
 * width (4 or 8 bytes, native byte order, any alignment); the result buffer is read only for fetching operations.
 *
 * <p>Checked at the call, before anything is sent, each with an {@link IllegalArgumentException} naming the value and
 * what is allowed: the rank, the offset (in the target's segment and aligned to the type's size), the operation (in the
 * domain's set), operands a 32-bit integer type cannot hold, the result buffer, and the flags.
 *
 * <p>Implementations, chosen when the domain is created: on smp the operation is the CPU's atomic on the peer's
 * cross-mapped segment, complete at return. On conduits with native RMA (ofi, ibv) the NIC may perform every
 * operation, on this rank's own values too ({@link NicAtomics}: {@code fi_fetch_atomic}/{@code fi_compare_atomic}
 * where {@code fi_query_atomic} reports the domain's type and every operation of its set; ibv's 64-bit fetch-and-add
 * and compare-and-swap): for a domain created with {@link #FAVOR_REMOTE}, or without hints where the NIC's atomics
 * are its own hardware's (ibv; not libfabric's software providers, whose emulation the AM path beats), as GASNet's
 * ibv-conduit chooses. Otherwise, and always with {@link #FAVOR_MY_RANK} or {@link #FAVOR_MY_NBRHD}, an active
 * message to the target, whose handler applies it with the CPU's atomics ({@link AmAtomics}), and on the rank itself
 * the CPU's atomic. {@code GEX_AD_OVER_AM=1} (or {@code GEX_RMA_OVER_AM=1}) forces active messages on every conduit,
 * for tests and comparison.
 *
 * <p>Creation and {@link #close()} are collective in GASNet-EX; here they exchange nothing and do not synchronise, so
 * every rank should create its domain before any rank uses it on it and close it only after the job's operations
 * completed (a barrier), as GASNet requires. Any thread may call the operations.
 */
public final class AtomicDomain implements AutoCloseable {
    private static final CoreAccess CORE = CoreAccess.get();

    /** Acquire ordering for the calling thread at the operation's completion ({@code GEX_FLAG_AD_ACQ}). */
    public static final int ACQ = 1 << 1;
    /** Release ordering for the calling thread before the operation starts ({@code GEX_FLAG_AD_REL}). */
    public static final int REL = 1 << 2;
    /** An assertion that the target is the calling rank ({@code GEX_FLAG_AD_MY_RANK}): checked. */
    public static final int MY_RANK = 1 << 3;
    /**
     * An assertion that the target shares memory with the calling rank ({@code GEX_FLAG_AD_MY_NBRHD}): checked; on smp
     * every rank does, elsewhere only the rank itself.
     */
    public static final int MY_NBRHD = 1 << 4;
    /** Creation hint: most operations target the creating rank. */
    public static final int FAVOR_MY_RANK = 1 << 8;
    /** Creation hint: most operations target ranks sharing memory with the creating one. */
    public static final int FAVOR_MY_NBRHD = 1 << 9;
    /** Creation hint: most operations target other hosts. */
    public static final int FAVOR_REMOTE = 1 << 10;

    private static final int OP_FLAGS = Flags.IMMEDIATE | ACQ | REL | MY_RANK | MY_NBRHD;
    /** Never started: a probe for result segments confined to one thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });
    private static final int CREATE_FLAGS = FAVOR_MY_RANK | FAVOR_MY_NBRHD | FAVOR_REMOTE;
    /** The span of the operands a 32-bit type takes, [Integer.MIN_VALUE, 0xffff_ffff], less its minimum. */
    private static final long NARROW_SPAN = 0xffff_ffffL - Integer.MIN_VALUE;

    private final Client client;
    private final Rma rma;
    private final AtomicType type;
    private final Set<AtomicOp> ops;
    /** Bit i set: {@code AtomicOp.values()[i]} is in the set. */
    private final int opBits;
    private final int flags;
    private final boolean crossMapped;
    /** What reaches the values this domain does not change with the CPU: the NIC, or active messages. */
    private final AtomicEngine engine;
    /** The rank whose values the CPU changes directly besides cross-mapped ones: this one, or -1 with the NIC. */
    private final int cpuRank;
    private final boolean integer;
    private final int width;
    /** -1 for a 32-bit type, whose operands {@link #checkOperands} range-checks, else 0. */
    private final long narrow;
    /** The bits of an operand the type keeps. */
    private final long valueMask;
    /**
     * Built at creation where the segments are attached, else {@link Targets#NONE} until the first operation. Built
     * early, the first operation does not take {@link #checkSlowly}: a path taken once is a call the JIT keeps in the
     * caller's loop, and the values it keeps across that call cost stores in every iteration.
     */
    private Targets targets = Targets.NONE;
    private final ThreadLocal<Event> blocking;
    private final ThreadLocal<MemorySegment> blockingResult;
    private volatile boolean closed;
    /**
     * The operations {@code opLong} and its forms accept (bit i for {@code AtomicOp.values()[i]}): the set on an
     * integer domain, none on a floating-point one, none once closed; {@link #check} tests the operation, the form
     * and {@link #closed} with one load.
     */
    private volatile int longOps;
    /** As {@link #longOps}, for {@code opDouble} and its forms. */
    private volatile int doubleOps;

    private AtomicDomain(Client client, AtomicType type, Set<AtomicOp> ops, int flags) {
        this.client = client;
        this.rma = Rma.of(client);
        this.type = type;
        this.ops = Collections.unmodifiableSet(EnumSet.copyOf(ops));
        int bits = 0;
        for (AtomicOp op : ops) {
            bits |= 1 << op.ordinal();
        }
        this.opBits = bits;
        this.flags = flags;
        this.crossMapped = rma.atomicsDirect();
        final NicAtomics nic = rma.nicAtomics();
        final boolean byNic = nic != null && nic.chosen(type, ops, flags);
        this.engine = byNic ? nic : rma.amAtomics();
        this.cpuRank = byNic ? -1 : client.rank();
        this.integer = type.integer();
        this.width = type.bytes();
        this.narrow = width == 4 ? -1 : 0;
        this.valueMask = width == 4 ? 0xffff_ffffL : -1;
        this.longOps = integer ? bits : 0;
        this.doubleOps = integer ? 0 : bits;
        this.blocking = ThreadLocal.withInitial(() -> CORE.newEvent(client));
        this.blockingResult = ThreadLocal.withInitial(() -> java.lang.foreign.Arena.ofAuto().allocate(8, 8));
        if (client.hasSegment()) {
            targets();
        }
    }

    /**
     * Creates a domain for {@code type} and the operations {@code ops} ({@code gex_AD_Create} on the job's team).
     *
     * @param flags 0 or {@link #FAVOR_MY_RANK}, {@link #FAVOR_MY_NBRHD}, {@link #FAVOR_REMOTE}
     * @throws IllegalArgumentException for a bitwise operation on a floating-point type, an empty set, or other flags
     */
    public static AtomicDomain create(Client client, AtomicType type, Set<AtomicOp> ops, int flags) {
        if (client == null || type == null || ops == null) {
            throw new NullPointerException(client == null ? "client is null" : type == null ? "type is null"
                : "ops is null");
        }
        CORE.checkOpen(client);
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("an atomic domain needs at least one operation; ops is empty");
        }
        for (AtomicOp op : ops) {
            if (op == null) {
                throw new NullPointerException("ops contains null");
            }
            if (op.bitwise() && !type.integer()) {
                throw new IllegalArgumentException(op + " takes integer types only, not " + type);
            }
        }
        if ((flags & ~CREATE_FLAGS) != 0) {
            throw new IllegalArgumentException("atomic domain flags 0x" + Integer.toHexString(flags)
                + " has bits outside FAVOR_MY_RANK, FAVOR_MY_NBRHD, FAVOR_REMOTE (0x"
                + Integer.toHexString(CREATE_FLAGS) + ")");
        }
        return new AtomicDomain(client, type, ops, flags);
    }

    public Client client() {
        return client;
    }

    public AtomicType type() {
        return type;
    }

    /** The operations it takes ({@code gex_AD_QueryOps}). */
    public Set<AtomicOp> ops() {
        return ops;
    }

    /** The flags it was created with ({@code gex_AD_QueryFlags}). */
    public int flags() {
        return flags;
    }

    /** Later operations throw {@link IllegalStateException}; those in flight complete. Idempotent. */
    @Override
    public void close() {
        closed = true;
        longOps = 0;
        doubleOps = 0;
    }

    // ------------------------------------------------------------------------------------------ integer types

    /**
     * Blocking operation on an integer domain.
     *
     * @param operand1 the operand (the value to compare for CAS and FCAS); ignored by GET, INC and DEC
     * @param operand2 the value CAS and FCAS swap in; ignored by the others
     * @param flags    0 or {@link Flags#IMMEDIATE} (ignored here), {@link #ACQ}, {@link #REL}, {@link #MY_RANK},
     *                 {@link #MY_NBRHD}
     * @return the target's previous value for a fetching operation (32-bit types: sign-extended for INT32,
     *         zero-extended for UINT32), else 0
     */
    public long opLong(int rank, long offset, AtomicOp op, long operand1, long operand2, int flags) {
        final long at = check(longOps, rank, offset, op, flags, true);
        checkOperands(op, operand1, operand2);
        final long a = longBits(op, operand1, 1);
        final long b = longBits(op, operand2, 2);
        if (at != 0) {
            final long old = AtomicArithmetic.applyInteger(type, op, at, a, b);
            return op.fetching() ? old : 0;
        }
        return run(rank, offset, op, a, b, flags);
    }

    /**
     * Non-blocking operation on an integer domain; a fetching one stores the previous value into {@code result} at
     * {@code resultOffset} before the event completes.
     *
     * @return the event, {@link Event#DONE} if already complete, or null if {@link Flags#IMMEDIATE} was given and
     *         resources were short (nothing started: {@code GEX_EVENT_NO_OP})
     */
    public Event opLongNb(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long operand1,
                          long operand2, int flags) {
        final long at = check(longOps, rank, offset, op, flags, true);
        checkResult(op, result, resultOffset);
        checkOperands(op, operand1, operand2);
        final long a = longBits(op, operand1, 1);
        final long b = longBits(op, operand2, 2);
        if (at != 0) {
            applyAt(at, result, resultOffset, op, a, b, true);
            return Event.DONE;
        }
        return startNb(result, resultOffset, rank, offset, op, a, b, flags);
    }

    /**
     * Implicit-handle operation on an integer domain; a fetching one stores the previous value into {@code result}.
     *
     * @return 0, or non-zero if {@link Flags#IMMEDIATE} was given and resources were short (nothing started)
     */
    public int opLongNbi(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long operand1,
                         long operand2, int flags) {
        final long at = check(longOps, rank, offset, op, flags, true);
        checkResult(op, result, resultOffset);
        checkOperands(op, operand1, operand2);
        final long a = longBits(op, operand1, 1);
        final long b = longBits(op, operand2, 2);
        if (at != 0) {
            applyAt(at, result, resultOffset, op, a, b, true);
            return 0;
        }
        return startNbi(result, resultOffset, rank, offset, op, a, b, flags);
    }

    // ------------------------------------------------------------------------------------------ floating point

    /** Blocking operation on a floating-point domain; otherwise as {@link #opLong}. */
    public double opDouble(int rank, long offset, AtomicOp op, double operand1, double operand2, int flags) {
        final long at = check(doubleOps, rank, offset, op, flags, false);
        final long a = doubleBits(operand1);
        final long b = doubleBits(operand2);
        final long bits = at != 0 ? AtomicArithmetic.applyFloating(type, op, at, a, b)
            : run(rank, offset, op, a, b, flags);
        return op.fetching() ? toDouble(bits) : 0;
    }

    /** Non-blocking operation on a floating-point domain; otherwise as {@link #opLongNb}. */
    public Event opDoubleNb(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op,
                            double operand1, double operand2, int flags) {
        final long at = check(doubleOps, rank, offset, op, flags, false);
        checkResult(op, result, resultOffset);
        if (at != 0) {
            applyAt(at, result, resultOffset, op, doubleBits(operand1), doubleBits(operand2), false);
            return Event.DONE;
        }
        return startNb(result, resultOffset, rank, offset, op, doubleBits(operand1), doubleBits(operand2), flags);
    }

    /** Implicit-handle operation on a floating-point domain; otherwise as {@link #opLongNbi}. */
    public int opDoubleNbi(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op,
                           double operand1, double operand2, int flags) {
        final long at = check(doubleOps, rank, offset, op, flags, false);
        checkResult(op, result, resultOffset);
        if (at != 0) {
            applyAt(at, result, resultOffset, op, doubleBits(operand1), doubleBits(operand2), false);
            return 0;
        }
        return startNbi(result, resultOffset, rank, offset, op, doubleBits(operand1), doubleBits(operand2), flags);
    }

    // ------------------------------------------------------------------------------------------ paths

    /** A blocking operation: its previous value's bits (0 for non-fetching operations). */
    private long run(int rank, long offset, AtomicOp op, long a, long b, int flags) {
        if ((flags & REL) != 0) {
            VarHandle.releaseFence();
        }
        if (crossMapped || rank == cpuRank) {
            final long old = AtomicArithmetic.apply(type, op, targets.base[rank] + offset, a, b);
            return op.fetching() ? old : 0;
        }
        final MemorySegment r = blockingResult.get();
        final Event e = blocking.get();
        engine.start(type, op, rank, offset, a, b, op.fetching() ? r : null, 0, e, false);
        e.await();
        if ((flags & ACQ) != 0) {
            VarHandle.acquireFence();
        }
        return op.fetching() ? (type.bytes() == 4 ? AtomicArithmetic.extend(type, r.get(ValueLayout.JAVA_INT, 0))
            : r.get(ValueLayout.JAVA_LONG, 0)) : 0;
    }

    private Event startNb(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long a, long b,
                          int flags) {
        if ((flags & REL) != 0) {
            VarHandle.releaseFence();
        }
        if (crossMapped || rank == cpuRank) {
            applyAt(targets.base[rank] + offset, result, resultOffset, op, a, b, integer);
            return Event.DONE;
        }
        return startNbRemote(result, resultOffset, rank, offset, op, a, b, flags);
    }

    private Event startNbRemote(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long a,
                                long b, int flags) {
        final Event e = CORE.pooledEvent(client);
        final int code = engine.start(type, op, rank, offset, a, b, op.fetching() ? result : null,
            resultOffset, e, (flags & Flags.IMMEDIATE) != 0);
        return code == Am.OK ? e : null;
    }

    private int startNbi(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long a, long b,
                         int flags) {
        if ((flags & REL) != 0) {
            VarHandle.releaseFence();
        }
        if (crossMapped || rank == cpuRank) {
            applyAt(targets.base[rank] + offset, result, resultOffset, op, a, b, integer);
            return 0;
        }
        return startNbiRemote(result, resultOffset, rank, offset, op, a, b, flags);
    }

    private int startNbiRemote(MemorySegment result, long resultOffset, int rank, long offset, AtomicOp op, long a,
                               long b, int flags) {
        return engine.start(type, op, rank, offset, a, b, op.fetching() ? result : null, resultOffset,
            CORE.nbiEvent(client, op.category()), (flags & Flags.IMMEDIATE) != 0);
    }

    /**
     * The CPU's atomic on memory this process maps, the previous value stored if it fetches: by raw address where the
     * result is native ({@link #checkResult} found it alive and shared), as {@link AtomicArithmetic} applies.
     */
    private void applyAt(long at, MemorySegment result, long resultOffset, AtomicOp op, long a, long b,
                         boolean integerForm) {
        // a constant where the public methods inline this: the JIT compiles only their kind's arithmetic
        final long old = integerForm ? AtomicArithmetic.applyInteger(type, op, at, a, b)
            : AtomicArithmetic.applyFloating(type, op, at, a, b);
        if (op.fetching()) {
            if (result.isNative()) {
                if (width == 4) {
                    UnsafeApi.putInt(result.address() + resultOffset, (int) old);
                } else {
                    UnsafeApi.putLong(result.address() + resultOffset, old);
                }
            } else {
                storeChecked(type, result, resultOffset, old);
            }
        }
    }

    /**
     * Stores a previous value's bits in {@code type}'s width, native byte order, any alignment, through the segment's
     * checks: for a result stored later by the polling thread, whose arena may have been closed meanwhile.
     */
    static void storeChecked(AtomicType type, MemorySegment result, long offset, long bits) {
        if (type.bytes() == 4) {
            result.set(ValueLayout.JAVA_INT_UNALIGNED, offset, (int) bits);
        } else {
            result.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, bits);
        }
    }

    // ------------------------------------------------------------------------------------------ conversions

    /**
     * An integer operand as the bits the target takes (0 for one {@code op} ignores); 32-bit types take either signed
     * or unsigned values, which {@link #checkOperands} checked.
     */
    private long longBits(AtomicOp op, long operand, int which) {
        return operand & reads(op, which) & valueMask;
    }

    /** -1 if {@code op} reads its operand {@code which} (1 or 2), else 0: without a branch, as in {@link #check}. */
    private static long reads(AtomicOp op, int which) {
        return (which - op.operands() - 1) >> 31;
    }

    /** Negative if a 32-bit type cannot hold {@code operand}. */
    private long tooWide(long operand) {
        final long fromMin = operand - Integer.MIN_VALUE;
        return (fromMin | NARROW_SPAN - fromMin) & narrow;
    }

    /** Refuses an operand {@code op} reads that the type cannot hold; one branch for both, as in {@link #check}. */
    private void checkOperands(AtomicOp op, long operand1, long operand2) {
        if ((tooWide(operand1) & reads(op, 1) | tooWide(operand2) & reads(op, 2)) < 0) {
            throw operandTooWide(op, operand1, operand2);
        }
    }

    private IllegalArgumentException operandTooWide(AtomicOp op, long operand1, long operand2) {
        final int which = (tooWide(operand1) & reads(op, 1)) < 0 ? 1 : 2;
        return new IllegalArgumentException("operand " + which + " of " + op + ", " + (which == 1 ? operand1
            : operand2) + ", does not fit " + type + ": allowed [" + Integer.MIN_VALUE + ", " + 0xffff_ffffL + "]");
    }

    private long doubleBits(double operand) {
        return type == AtomicType.FLOAT32 ? Float.floatToRawIntBits((float) operand) & 0xffff_ffffL
            : Double.doubleToRawLongBits(operand);
    }

    private double toDouble(long bits) {
        return type == AtomicType.FLOAT32 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    }

    // ------------------------------------------------------------------------------------------ checks

    /** Each rank's segment as this domain reaches it: immutable, so that any thread may publish it. */
    private static final class Targets {
        /** The address of the rank's segment here (0 where the NIC or AM reach it). */
        final long[] base;
        /** The largest offset at which a value of the type fits in the rank's segment. */
        final long[] limit;

        /** Reaches no rank: sends the first operation to the full checks, which build the real ones. */
        static final Targets NONE = new Targets(new long[0], new long[0]);

        Targets(long[] base, long[] limit) {
            this.base = base;
            this.limit = limit;
        }
    }

    /** @throws IllegalStateException if no segment is attached yet */
    private Targets targets() {
        Targets t = targets;
        if (t == Targets.NONE) {
            final Segment segment = client.segment();
            final long[] base = new long[client.size()];
            final long[] limit = new long[base.length];
            for (int r = 0; r < base.length; r++) {
                limit[r] = segment.size(r) - width;
                base[r] = crossMapped || r == cpuRank ? rma.atomicTarget(r).address() : 0;
            }
            t = new Targets(base, limit);
            targets = t; // a benign race: every thread builds the same
        }
        return t;
    }

    /**
     * The checks of every operation, in two tests for the common case; {@link #checkFully} names what is wrong. The
     * locality assertions always take the full checks.
     *
     * @return the value's address where the calling thread applies the operation now with the CPU's atomic and
     *         without flags (the direct path, kept small enough for the JIT to inline into the caller's loop), else 0
     */
    private long check(int accepted, int rank, long offset, AtomicOp op, int flags, boolean integerForm) {
        CORE.checkOpenAndNotRestricted(client, "a remote atomic");
        final Targets t = targets;
        final long[] limit = t.limit;
        // a null op fails at op.ordinal() below, an implicit check that costs no code here
        if ((rank | limit.length - 1 - rank) < 0) {
            return checkSlowly(rank, offset, op, flags, integerForm);
        }
        // The rest as one sign, without a branch per test: each branch the JIT never saw taken costs an exit of
        // some 60 bytes of code, and together they made the method too large to inline into the caller's loop.
        // (x | -x) is negative exactly when x is not 0.
        final long misaligned = offset & (width - 1);
        final int otherFlags = flags & ~(Flags.IMMEDIATE | ACQ | REL);
        if (((accepted >>> op.ordinal() & 1) - 1 | offset | limit[rank] - offset | misaligned | -misaligned
            | otherFlags | -otherFlags) < 0) {
            return checkSlowly(rank, offset, op, flags, integerForm);
        }
        return directAddress(t.base[rank], offset, flags);
    }

    /** {@link #check}'s answer after {@link #checkFully}, which throws or accepts a locality flag. */
    private long checkSlowly(int rank, long offset, AtomicOp op, int flags, boolean integerForm) {
        checkFully(rank, offset, op, flags, integerForm);
        return directAddress(targets().base[rank], offset, flags);
    }

    /** {@code base + offset} where the segment is mapped here ({@code base} not 0) and no flag is given, else 0. */
    private static long directAddress(long base, long offset, int flags) {
        // branch-free as in check: -1 keeps the address
        final long keep = ~(long) ((flags | -flags) >> 31) & (base | -base) >> 63;
        return base + offset & keep;
    }

    private void checkFully(int rank, long offset, AtomicOp op, int flags, boolean integerForm) {

        if (closed) {
            throw new IllegalStateException("this " + type + " atomic domain is closed");
        }
        if (op == null) {
            throw new NullPointerException("op is null");
        }
        if (integerForm != type.integer()) {
            throw new IllegalArgumentException("a " + type + " domain takes " + (type.integer() ? "opLong" : "opDouble")
                + " and its forms, not " + (integerForm ? "opLong" : "opDouble"));
        }
        if ((opBits & (1 << op.ordinal())) == 0) {
            throw new IllegalArgumentException("operation " + op + " is not in this domain's set " + ops);
        }
        if ((flags & ~OP_FLAGS) != 0) {
            throw new IllegalArgumentException("atomic operation flags 0x" + Integer.toHexString(flags)
                + " has bits outside IMMEDIATE, ACQ, REL, MY_RANK, MY_NBRHD (0x" + Integer.toHexString(OP_FLAGS) + ")");
        }
        rma.checkAtomicTarget(rank, offset, width);
        if ((offset & (width - 1)) != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not aligned to the " + type.bytes()
                + "-byte size of " + type);
        }
        if ((flags & MY_RANK) != 0 && rank != client.rank()) {
            throw new IllegalArgumentException("MY_RANK asserted for rank " + rank + ", but this is rank "
                + client.rank());
        }
        if ((flags & MY_NBRHD) != 0 && rank != client.rank() && !client.capabilities().crossMapped()) {
            throw new IllegalArgumentException("MY_NBRHD asserted for rank " + rank + ", but rank " + client.rank()
                + " shares memory with no other rank on this conduit");
        }
    }

    /**
     * A fetching operation's result buffer: in range, writable, reachable from every thread (over AM the polling
     * thread stores it) and alive (a target in this process stores it now, by raw address).
     */
    private void checkResult(AtomicOp op, MemorySegment result, long resultOffset) {
        if (op.fetching() && (result == null || (resultOffset | result.byteSize() - width - resultOffset) < 0
            || result.isReadOnly() || !result.isAccessibleBy(ANOTHER_THREAD) || !result.scope().isAlive())) {
            refuseResult(op, result, resultOffset);
        }
    }

    /** Throws what is wrong with a result buffer {@link #checkResult} refused. */
    private void refuseResult(AtomicOp op, MemorySegment result, long resultOffset) {
        if (result == null) {
            throw new NullPointerException("result is null, but " + op + " fetches");
        }
        Rma.checkDestination(result, resultOffset, width);
        throw new IllegalStateException("the result segment's arena is closed");
    }
}
