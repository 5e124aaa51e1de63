package org.gexj.spi;

/**
 * Found through {@link java.util.ServiceLoader}; one per conduit module ({@code <Name>ConduitProvider}).
 */
public interface ConduitProvider {
    /** Name used by {@code GEX_CONDUIT} and {@code gexrun --conduit}. */
    String name();

    /** Cheap probe: can this conduit run on this machine (native libraries, devices, /dev/shm...)? */
    boolean isAvailable();

    /**
     * Why {@link #isAvailable()} is false, or {@code null} when it is true. The default suits a conduit that is
     * always available or has no more to say than its name.
     */
    default Throwable unavailabilityCause() {
        return isAvailable() ? null : new UnsupportedOperationException("conduit " + name() + " is not available on"
            + " this machine (its provider gives no cause)");
    }

    /** Collective over the job: creates this rank's conduit instance. */
    Conduit open(ConduitContext context);

    /**
     * Removes whatever job {@code jobId} of this conduit may have left on this host (files, shared memory) after its
     * processes ended; the launcher calls it for every conduit after every job. A conduit that leaks nothing when its
     * ranks are killed returns an empty list.
     *
     * @param rankPids the process ids of the job's ranks that ran on this host, each ended or given up on (a rank
     *                 still alive keeps what it uses); empty when the ranks ran on other hosts
     * @return what was removed, one description each, so the launcher can report it
     */
    default java.util.List<String> cleanup(String jobId, java.util.List<Long> rankPids) {
        return java.util.List.of();
    }
}
