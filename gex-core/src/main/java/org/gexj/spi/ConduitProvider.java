package org.gexj.spi;

/**
 * Found through {@link java.util.ServiceLoader}; one per conduit module ({@code <Name>ConduitProvider}).
 */
public interface ConduitProvider {
    /** Name used by {@code GEX_CONDUIT} and {@code gexrun --conduit}. */
    String name();

    /** Cheap probe: can this conduit run on this machine (native libraries, devices, /dev/shm...)? */
    boolean isAvailable();

    /** Why {@link #isAvailable()} is false, or {@code null}. */
    Throwable unavailabilityCause();

    /** Collective over the job: creates this rank's conduit instance. */
    Conduit open(ConduitContext context);
}
