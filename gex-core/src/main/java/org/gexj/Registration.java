package org.gexj;

import java.lang.foreign.MemorySegment;

/**
 * Native memory outside the segment that other ranks may put into and get from ({@link Client#register}), through its
 * {@link #descriptor()}: the one-sided RMA between user buffers of GASNet-EX's bound memory, Photon's registered
 * buffers and Charm++'s zero-copy API. Closing it deregisters it: from then on this rank refuses every access through
 * its descriptor, and the initiator's operation fails naming the rank and the range. Closing the client closes every
 * registration still open.
 *
 * <p>The memory stays the caller's: closing its arena while the registration is open makes later accesses fail (the
 * owner refuses them), but an access already copying may race with the close, the rule every native buffer of GEX/J
 * follows. Where peers reach the memory without the owner (smp's Cross Memory Attach), the owner closes such a
 * registration at its next barrier, and until then an access reaches whatever the process has at that address:
 * close the registration before its arena. Any thread may close it; {@link #close} is idempotent; it returns once no
 * peer's access through it is in progress.
 */
public final class Registration implements AutoCloseable {
    private final RegistrationTable table;
    private final MemorySegment memory;
    private final BufferDescriptor descriptor;
    private volatile boolean open = true;

    Registration(RegistrationTable table, MemorySegment memory, BufferDescriptor descriptor) {
        this.table = table;
        this.memory = memory;
        this.descriptor = descriptor;
    }

    /** The registered memory, as it was given. */
    public MemorySegment memory() {
        return memory;
    }

    /** What another rank needs to reach this memory: encode it into a message ({@link BufferDescriptor#encode}). */
    public BufferDescriptor descriptor() {
        return descriptor;
    }

    /** Whether this registration is still open (not closed, nor its client). */
    public boolean isOpen() {
        return open;
    }

    int handle() {
        return descriptor.handle();
    }

    /** Marks it closed; @return whether it was open */
    boolean markClosed() {
        if (!open) {
            return false;
        }
        open = false;
        return true;
    }

    /** Deregisters the memory: this rank refuses accesses through the descriptor from now on. */
    @Override
    public void close() {
        table.close(this);
    }

    @Override
    public String toString() {
        return "Registration[" + descriptor + (open ? "" : ", closed") + "]";
    }
}
