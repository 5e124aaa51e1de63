package org.gexj.smp.ffm;

import org.gexj.internal.ffm.CallSlots;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code <sys/uio.h>} of the C library: {@code process_vm_readv} and {@code process_vm_writev} (Cross Memory Attach),
 * one copy between this process's memory and another's, one local and one remote {@code struct iovec} per call. One
 * {@link UioH} holds {@value #SLOTS} sets of the two iovecs and the errno capture, each taken by one calling thread at
 * a time, so a transfer allocates nothing on any thread; a thread that finds every set taken is told so and moves its
 * data another way.
 *
 * <p>Threads: any, concurrently.
 */
public final class UioH {
    /** {@code struct iovec} (x86_64, aarch64). */
    static final StructLayout IOVEC = MemoryLayout.structLayout(ADDRESS.withName("iov_base"),
        JAVA_LONG.withName("iov_len")).withName("iovec");
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final FunctionDescriptor VM_RW = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG,
        ADDRESS, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle READV = downcall("process_vm_readv");
    private static final MethodHandle WRITEV = downcall("process_vm_writev");

    public static final int EPERM = 1;
    public static final int ESRCH = 3;
    public static final int EFAULT = 14;
    public static final int ENOSYS = 38;
    /** Every set of iovecs is taken by another thread: nothing was moved. */
    public static final long BUSY = Long.MIN_VALUE;
    /** Threads that may transfer at once. */
    static final int SLOTS = 16;

    private final MemorySegment[] local = new MemorySegment[SLOTS];
    private final MemorySegment[] remote = new MemorySegment[SLOTS];
    private final MemorySegment[] capture = new MemorySegment[SLOTS];
    private final CallSlots taken = new CallSlots(SLOTS);

    private static MethodHandle downcall(String name) {
        return Linker.nativeLinker().downcallHandle(Linker.nativeLinker().defaultLookup().find(name).orElseThrow(),
            VM_RW, Linker.Option.captureCallState("errno"));
    }

    /** The memory lives as long as {@code arena}. */
    public UioH(Arena arena) {
        for (int i = 0; i < SLOTS; i++) {
            local[i] = arena.allocate(IOVEC);
            remote[i] = arena.allocate(IOVEC);
            capture[i] = arena.allocate(CAPTURE);
        }
    }

    /**
     * Copies {@code nbytes} between {@code localAddress} here and {@code remoteAddress} in process {@code pid}: into
     * it ({@code write}) or out of it, retrying the rest of a partial transfer.
     *
     * @return {@code nbytes}, the negated errno of a failure ({@link #EPERM}: not allowed, {@link #ESRCH}: no such
     *         process, {@link #EFAULT}: memory not mapped), or {@link #BUSY}
     */
    public long transfer(boolean write, int pid, long localAddress, long remoteAddress, long nbytes) {
        final int slot = taken.take();
        if (slot < 0) {
            return BUSY;
        }
        try {
            final MemorySegment l = local[slot];
            final MemorySegment r = remote[slot];
            long done = 0;
            while (done < nbytes) {
                l.set(JAVA_LONG, 0, localAddress + done);
                l.set(JAVA_LONG, 8, nbytes - done);
                r.set(JAVA_LONG, 0, remoteAddress + done);
                r.set(JAVA_LONG, 8, nbytes - done);
                final long n = write
                    ? (long) WRITEV.invokeExact(capture[slot], pid, l, 1L, r, 1L, 0L)
                    : (long) READV.invokeExact(capture[slot], pid, l, 1L, r, 1L, 0L);
                if (n < 0) {
                    return -(int) ERRNO.get(capture[slot], 0L);
                }
                if (n == 0) {
                    return -EFAULT; // no progress: the rest is not mapped
                }
                done += n;
            }
            return done;
        } catch (Throwable t) {
            throw new IllegalStateException("process_vm_" + (write ? "writev" : "readv") + " failed", t);
        } finally {
            taken.give(slot);
        }
    }

    /** The C library's name for an errno value this class returns. */
    public static String describe(long negatedErrno) {
        return switch ((int) -negatedErrno) {
            case EPERM -> "EPERM (not permitted: ptrace scope, or another user's process)";
            case ESRCH -> "ESRCH (no such process)";
            case EFAULT -> "EFAULT (memory not mapped)";
            case ENOSYS -> "ENOSYS (the kernel has no Cross Memory Attach)";
            default -> "errno " + -negatedErrno;
        };
    }
}
