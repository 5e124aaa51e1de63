package org.gexj.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Named values the ranks of one kit job pass to each other outside GEX/J, for tests that need a rank to wait without
 * polling (a target that must not drain its queue while a peer fills it). Anything sent through GEX/J would need the
 * very polling the test forbids. In a job of threads the values live in memory; in a job of processes started by
 * gexrun, in files of a directory the kit's driver creates for the job.
 */
public final class KitSignals {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");
    private static final long SLEEP_MS = 2;

    private final Path directory;
    private final Map<String, Long> values = new HashMap<>();

    private KitSignals(Path directory) {
        this.directory = directory;
    }

    static KitSignals inMemory() {
        return new KitSignals(null);
    }

    static KitSignals inDirectory(Path directory) {
        return new KitSignals(directory);
    }

    /** Sets {@code name} to {@code value}; a name is set once per job. */
    public void post(String name, long value) {
        check(name);
        if (directory == null) {
            synchronized (values) {
                if (values.putIfAbsent(name, value) != null) {
                    throw new IllegalStateException("kit signal " + name + " posted twice");
                }
                values.notifyAll();
            }
            return;
        }
        try {
            final Path file = directory.resolve(name);
            final Path partial = directory.resolve(name + ".partial-" + ProcessHandle.current().pid());
            Files.writeString(partial, Long.toString(value), StandardCharsets.US_ASCII);
            try {
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("kit signal " + name + " in " + directory, e);
        }
    }

    /** Whether {@code name} has been posted, without waiting. */
    public boolean posted(String name) {
        check(name);
        if (directory == null) {
            synchronized (values) {
                return values.containsKey(name);
            }
        }
        return Files.exists(directory.resolve(name));
    }

    /** Sleeps until {@code name} is posted or {@code wait} has passed. @return whether it was posted */
    public boolean postedWithin(String name, Duration wait) {
        final long deadline = System.nanoTime() + wait.toNanos();
        while (!posted(name)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(SLEEP_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for kit signal " + name, e);
            }
        }
        return true;
    }

    /**
     * Waits, sleeping, until {@code name} is posted, and returns its value.
     *
     * @throws AssertionError if it is not posted within {@code timeout}
     */
    public long await(String name, Duration timeout) {
        check(name);
        final long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (directory == null) {
                synchronized (values) {
                    while (!values.containsKey(name)) {
                        final long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new AssertionError("kit signal " + name + " not posted within " + timeout);
                        }
                        values.wait(Math.max(1, left / 1_000_000));
                    }
                    return values.get(name);
                }
            }
            final Path file = directory.resolve(name);
            while (!Files.exists(file)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("kit signal " + name + " not posted within " + timeout);
                }
                Thread.sleep(SLEEP_MS);
            }
            return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for kit signal " + name, e);
        } catch (IOException e) {
            throw new UncheckedIOException("kit signal " + name + " in " + directory, e);
        }
    }

    private static void check(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("kit signal name '" + name + "' must match " + NAME);
        }
    }
}
