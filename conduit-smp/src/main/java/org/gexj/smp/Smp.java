package org.gexj.smp;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Availability probe of the smp conduit, evaluated once per JVM: it needs /dev/shm (POSIX shared memory on Linux) as
 * a directory this user can write.
 */
public final class Smp {
    /** Where the conduit's files live. */
    public static final Path SHM = Path.of("/dev/shm");

    private static final Throwable UNAVAILABILITY_CAUSE = probe();

    private Smp() {
    }

    private static Throwable probe() {
        if (!Files.isDirectory(SHM)) {
            return new IllegalStateException(SHM + " does not exist or is not a directory");
        }
        if (!Files.isWritable(SHM)) {
            return new IllegalStateException(SHM + " is not writable by this user");
        }
        return null;
    }

    /** @return true if the smp conduit can open on this host */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Why {@link #isAvailable()} is false, or null. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }
}
