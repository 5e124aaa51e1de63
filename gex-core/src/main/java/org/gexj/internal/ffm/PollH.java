package org.gexj.internal.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code <poll.h>} of the C library: {@code ppoll} on one file descriptor (a socket, a completion queue's
 * {@code FI_WAIT_FD}) with a timeout in nanoseconds, for conduits whose ranks block on their transport when they have
 * nothing to do ({@link org.gexj.spi.Conduit#awaitActivity}). One {@link PollH} holds {@value #SLOTS} pairs of
 * {@code struct pollfd} and {@code struct timespec}, each taken by one waiting thread at a time, so a wait allocates
 * nothing, on any thread, ever (thread-local ones were allocated at a thread's first wait, inside measured windows).
 * A thread that finds every pair taken parks instead.
 *
 * <p>Threads: any, concurrently.
 */
public final class PollH {
    /** {@code struct pollfd}. */
    static final StructLayout POLLFD = MemoryLayout.structLayout(JAVA_INT.withName("fd"),
        JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents")).withName("pollfd");
    /** {@code struct timespec} (x86_64). */
    static final StructLayout TIMESPEC = MemoryLayout.structLayout(JAVA_LONG.withName("tv_sec"),
        JAVA_LONG.withName("tv_nsec")).withName("timespec");
    public static final short POLLIN = 0x1;
    private static final long EVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("events"));
    private static final long REVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("revents"));
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private static final MethodHandle PPOLL = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("ppoll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

    /** Threads that may wait at once; more park. */
    static final int SLOTS = 16;

    private final MemorySegment[] pollfds = new MemorySegment[SLOTS];
    private final MemorySegment[] timeouts = new MemorySegment[SLOTS];
    private final CallSlots taken = new CallSlots(SLOTS);

    /** For waits on {@code fd} for input; the memory lives as long as {@code arena}. */
    public PollH(Arena arena, int fd) {
        for (int i = 0; i < SLOTS; i++) {
            pollfds[i] = arena.allocate(POLLFD);
            pollfds[i].set(JAVA_INT, 0, fd);
            pollfds[i].set(JAVA_SHORT, EVENTS, POLLIN);
            timeouts[i] = arena.allocate(TIMESPEC);
        }
        awaitInput(0); // links the downcall now: its first call allocates, which a thread's first wait must not
    }

    /**
     * {@code ppoll} for input for up to {@code nanos}, or a park of as long when {@value #SLOTS} threads wait already.
     *
     * @return true if the descriptor is readable (or in error: the next call on it tells), false on timeout,
     *         interruption by a signal, or a park
     */
    public boolean awaitInput(long nanos) {
        final int slot = taken.take();
        if (slot < 0) {
            LockSupport.parkNanos(nanos);
            return false;
        }
        final MemorySegment pollfd = pollfds[slot];
        final MemorySegment timeout = timeouts[slot];
        try {
            timeout.set(JAVA_LONG, 0, nanos / NANOS_PER_SECOND);
            timeout.set(JAVA_LONG, Long.BYTES, nanos % NANOS_PER_SECOND);
            pollfd.set(JAVA_SHORT, REVENTS, (short) 0);
            return (int) PPOLL.invokeExact(pollfd, 1L, timeout, MemorySegment.NULL) > 0;
        } catch (Throwable t) {
            throw new IllegalStateException("ppoll could not be called", t);
        } finally {
            taken.give(slot);
        }
    }
}
