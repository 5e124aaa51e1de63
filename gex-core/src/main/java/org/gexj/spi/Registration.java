package org.gexj.spi;

import java.lang.foreign.MemorySegment;

/**
 * Memory outside the bound segment made usable for a conduit's RMA ({@link Conduit#register}), until
 * {@link #close()} releases it. Conduits that need no registration return a registration that holds nothing.
 */
public interface Registration extends AutoCloseable {
    MemorySegment memory();

    /** The key a peer needs to reach this memory, or empty. */
    byte[] remoteKey();

    /** Releases the registration; the memory itself stays its owner's. Idempotent. */
    @Override
    void close();

    /** A registration of {@code memory} that needs nothing from the conduit. */
    static Registration unregistered(MemorySegment memory) {
        return new Registration() {
            @Override
            public MemorySegment memory() {
                return memory;
            }

            @Override
            public byte[] remoteKey() {
                return new byte[0];
            }

            @Override
            public void close() {
            }
        };
    }
}
