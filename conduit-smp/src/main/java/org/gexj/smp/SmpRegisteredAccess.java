package org.gexj.smp;

import org.gexj.smp.ffm.UioH;
import org.gexj.smp.wire.RegistrationTableFlyweight;
import org.gexj.spi.RegisteredAccess;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Peers' registered memory reached with Cross Memory Attach, in one copy and without the owner's help: the zero-copy
 * path of Charm++'s LRTS within a host. Each rank publishes its registrations in its own
 * {@link RegistrationTableFlyweight}, which every peer maps; an access enters the slot (the owner's close waits for
 * it), checks the range and read-only flag the owner published, and calls {@code process_vm_writev} or
 * {@code process_vm_readv} on the owner's process.
 *
 * <p>{@value #SETTING}: {@code auto} (the default) tests Cross Memory Attach on every peer at start-up and, where the
 * kernel forbids it (Yama's {@code ptrace_scope}, another user's process, a kernel without it), moves registered
 * memory through messages and says why once; {@code off} always does; {@code on} fails the start-up where it cannot.
 * Operations below {@value #MIN_BYTES} ({@link #DEFAULT_MIN_BYTES}), heap memory, and a moment when
 * {@value UioH#SLOTS} threads copy at once, go through messages too.
 *
 * <p>Threads: {@link #put}/{@link #get} from any thread; {@link #publish}/{@link #withdraw} from the owner's
 * registering threads, which the core serialises.
 */
final class SmpRegisteredAccess implements RegisteredAccess {
    static final String SETTING = "GEX_SMP_CMA";
    static final String MIN_BYTES = "GEX_SMP_CMA_MIN";
    /**
     * 64 KiB. Below it a put or get goes through the rings: a round trip with the owner costs less than the system
     * call (3 Dec 2026, this VM: 1 B-4 KiB, 1.1-2.5 us with Cross Memory Attach against 0.4-1.2 through the rings).
     * From it on the two are within 1.3x of each other up to 256 KiB, and the rings are up to 2x faster above when
     * the owner has a core to poll with (they copy on both cores at once), but cost the owner a copy of every byte
     * that Cross Memory Attach does not.
     */
    static final long DEFAULT_MIN_BYTES = 64 << 10;
    /** How long a withdrawal waits for peers' copies in progress before it gives the slot up. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** {@link #move}'s answer when every copying slot of {@link UioH} is taken: a moment's wait, not a refusal. */
    private static final int BUSY = -1;

    private final int rank;
    private final RegistrationTableFlyweight[] tables;
    private final int[] pids;
    private final UioH uio;
    private final boolean enabled;
    /** {@value #MIN_BYTES}: smaller operations go through the rings. */
    private final long minBytes;
    private final AtomicLong puts = new AtomicLong();
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    /**
     * @param tables every rank's table, mapped, this rank's initialised
     * @param why    why Cross Memory Attach is not used, or null if it is
     */
    private SmpRegisteredAccess(int rank, RegistrationTableFlyweight[] tables, UioH uio, String why, long minBytes) {
        this.rank = rank;
        this.minBytes = minBytes;
        this.tables = tables;
        this.uio = uio;
        this.enabled = why == null;
        this.pids = new int[tables.length];
        for (int r = 0; r < tables.length; r++) {
            pids[r] = (int) tables[r].pid();
        }
        if (why != null && (rank == 0 || !why.startsWith(SETTING))) {
            System.err.println("gex: smp rank " + rank + ": registered memory moves through the rings, not Cross"
                + " Memory Attach: " + why);
        }
    }

    /**
     * Decides whether to use Cross Memory Attach ({@value #SETTING}) and tests it on every peer.
     *
     * @throws IllegalArgumentException for a bad setting, or {@code on} where a peer cannot be reached
     */
    static SmpRegisteredAccess open(String setting, long minBytes, int rank, RegistrationTableFlyweight[] tables,
                                    UioH uio) {
        if (!setting.equals("auto") && !setting.equals("on") && !setting.equals("off")) {
            throw new IllegalArgumentException(SETTING + "=" + setting + " is not one of auto, on, off");
        }
        String why = setting.equals("off") ? SETTING + "=off" : null;
        for (int r = 0; r < tables.length && why == null; r++) {
            why = probe(uio, tables[r], r);
        }
        if (why != null && setting.equals("on")) {
            throw new IllegalArgumentException(SETTING + "=on, but rank " + rank + " cannot use it: " + why);
        }
        return new SmpRegisteredAccess(rank, tables, uio, why, minBytes);
    }

    /** Reads rank {@code r}'s probe word through Cross Memory Attach; @return why that failed, or null */
    private static String probe(UioH uio, RegistrationTableFlyweight table, int r) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment word = scratch.allocate(Long.BYTES);
            final long n = uio.transfer(false, (int) table.pid(), word.address(), table.probeAddress(), Long.BYTES);
            if (n < 0) {
                return "process_vm_readv of rank " + r + " (pid " + table.pid() + ") failed: " + UioH.describe(n);
            }
            if (word.get(ValueLayout.JAVA_LONG, 0) != RegistrationTableFlyweight.PROBE) {
                return "process_vm_readv of rank " + r + " (pid " + table.pid() + ") read another word than its"
                    + " table's probe (a pid namespace between the ranks?)";
            }
            return null;
        } catch (UnsatisfiedLinkError | IllegalStateException e) {
            return "process_vm_readv is unavailable: " + e;
        }
    }

    /** Whether registered memory moves with Cross Memory Attach. */
    boolean enabled() {
        return enabled;
    }

    /** @return empty: peers copy with Cross Memory Attach, no key needed */
    @Override
    public OptionalLong publish(int handle, MemorySegment memory) {
        final int slot = RegisteredAccess.slotOf(handle);
        if (slot < RegistrationTableFlyweight.SLOTS) {
            // a slot whose close never drained (a peer died copying) stays taken: its new registration is refused
            tables[rank].publish(slot, handle, memory.address(), memory.byteSize(),
                memory.isReadOnly() ? RegistrationTableFlyweight.READ_ONLY : 0);
        }
        return OptionalLong.empty();
    }

    /** True where Cross Memory Attach is on and the registration is in the table peers map. */
    @Override
    public boolean pullable(int handle) {
        return enabled && RegisteredAccess.slotOf(handle) < RegistrationTableFlyweight.SLOTS;
    }

    @Override
    public void withdraw(int handle) {
        final int slot = RegisteredAccess.slotOf(handle);
        final RegistrationTableFlyweight mine = tables[rank];
        if (slot >= RegistrationTableFlyweight.SLOTS || !mine.close(slot, handle)) {
            return;
        }
        final long deadline = System.nanoTime() + DRAIN_NANOS;
        for (int spins = 0; mine.inProgress(slot) > 0; spins++) {
            if (System.nanoTime() - deadline > 0) {
                System.err.println("gex: smp rank " + rank + ": a peer's copy through registration 0x"
                    + Integer.toHexString(handle) + " did not end in 10 s (did it die?): its slot stays closed");
                return;
            }
            if (spins > 100) {
                LockSupport.parkNanos(10_000);
            } else {
                Thread.onSpinWait();
            }
        }
        mine.clear(slot);
    }

    @Override
    public int put(int peer, int handle, long offset, MemorySegment src, long srcOffset, long nbytes) {
        if (!enabled || nbytes < minBytes || !src.isNative()) {
            return ELSEWHERE;
        }
        return orElsewhere(move(true, peer, handle, offset, src.address() + srcOffset, nbytes));
    }

    @Override
    public int get(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
        if (!enabled || nbytes < minBytes || !dst.isNative() || dst.isReadOnly()) {
            return ELSEWHERE;
        }
        return orElsewhere(move(false, peer, handle, offset, dst.address() + dstOffset, nbytes));
    }

    /** Any length; waits while every copying slot is taken (other threads' copies, which end). */
    @Override
    public int pull(MemorySegment dst, long dstOffset, int peer, int handle, long offset, long nbytes) {
        if (!enabled || !dst.isNative() || dst.isReadOnly()) {
            return ELSEWHERE;
        }
        int code;
        for (int spins = 0; (code = move(false, peer, handle, offset, dst.address() + dstOffset, nbytes)) == BUSY;
             spins++) {
            if (spins > 100) {
                LockSupport.parkNanos(1_000);
            } else {
                Thread.onSpinWait();
            }
        }
        return code;
    }

    private static int orElsewhere(int code) {
        return code == BUSY ? ELSEWHERE : code;
    }

    private int move(boolean write, int peer, int handle, long offset, long local, long nbytes) {
        final int slot = RegisteredAccess.slotOf(handle);
        if (slot >= RegistrationTableFlyweight.SLOTS) {
            return ELSEWHERE;
        }
        final RegistrationTableFlyweight table = tables[peer];
        if (!table.enter(slot, handle)) {
            return NOT_REGISTERED;
        }
        try {
            if (offset > table.length(slot) - nbytes) {
                return OUT_OF_RANGE;
            }
            if (write && (table.flags(slot) & RegistrationTableFlyweight.READ_ONLY) != 0) {
                return READ_ONLY;
            }
            final long n = uio.transfer(write, pids[peer], local, table.address(slot) + offset, nbytes);
            if (n == UioH.BUSY) {
                return BUSY;
            }
            if (n < 0) {
                return FAULT;
            }
        } finally {
            table.exit(slot);
        }
        (write ? puts : gets).incrementAndGet();
        bytes.addAndGet(nbytes);
        return OK;
    }

    /** {@code smp.cma.puts}, {@code .gets}, {@code .bytes}: operations and bytes moved with Cross Memory Attach. */
    void counters(Map<String, Long> into) {
        into.put("smp.cma.puts", puts.get());
        into.put("smp.cma.gets", gets.get());
        into.put("smp.cma.bytes", bytes.get());
    }
}
