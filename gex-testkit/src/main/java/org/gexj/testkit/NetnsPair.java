package org.gexj.testkit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two "hosts" for a test class: a JUnit 5 extension that creates two Linux network namespaces joined by a veth pair
 * before the class's tests and removes them after (also when a test failed), so a network conduit's ranks talk over
 * a real link, with their own addresses, routes and firewall, instead of loopback.
 *
 * <p>Namespace {@code gexu<pid>c<n>a} holds {@code 10.231.X.1/24}, {@code gexu<pid>c<n>b} holds {@code 10.231.X.2/24},
 * both with {@code lo} up; the names are unique per test JVM and class ({@code <n>} counts the pairs of this JVM), and
 * so is X among this JVM's pairs (an X shared with another JVM's pair would do no harm: the addresses exist only in
 * each pair's namespaces). A gexrun job placed here ({@link #launcherPrefix()}, {@link #gexrunOptions()}) has its
 * launcher in the first namespace, its rendezvous on {@code 10.231.X.1}, and rank r in namespace {@code r % 2}, so
 * with 2 ranks or more every rank has a peer on the other side of the link.
 *
 * <p>Creating namespaces needs root (CI runs as root): when not root, or when {@code ip} (iproute2) is missing, the
 * class's tests are skipped, with a line on stderr saying why. Anything else that goes wrong fails them. Register it
 * in a static field: {@code @RegisterExtension static final NetnsPair NETNS = new NetnsPair();}. Constructing one
 * does nothing on the system (kit rank processes load the test class too); only {@link #beforeAll} does.
 */
public final class NetnsPair implements BeforeAllCallback, AfterAllCallback, KitHosts {
    private static final AtomicInteger PAIRS = new AtomicInteger();
    private static final Pattern OURS = Pattern.compile("gexu(\\d+)c\\d+[ab]");
    private static final long COMMAND_SECONDS = 30;

    private final String prefix;
    private final int subnet;
    private String ip;
    private Path directory;
    private Path wrapScript;
    private Thread shutdownHook;
    private volatile boolean created;

    public NetnsPair() {
        final long pid = ProcessHandle.current().pid();
        final int n = PAIRS.incrementAndGet();
        this.prefix = "gexu" + pid + "c" + n;
        // consecutive pairs of one JVM get different subnets; 1..254
        this.subnet = 1 + (int) Math.floorMod(pid * 7 + n, 254L);
    }

    /** The name of namespace {@code side} (0 or 1). */
    public String namespace(int side) {
        return prefix + (checkSide(side) == 0 ? "a" : "b");
    }

    /** The IPv4 address of namespace {@code side}'s end of the link. */
    public String address(int side) {
        return "10.231." + subnet + "." + (checkSide(side) + 1);
    }

    /** Both namespaces' addresses: rank {@code r} of a job placed here runs in namespace {@code r % 2}. */
    @Override
    public List<String> addresses() {
        return List.of(address(0), address(1));
    }

    /** The namespace rank {@code rank} of a job placed here runs in. */
    public int sideOfRank(int rank) {
        return rank % 2;
    }

    /** The words that run a command in namespace {@code side}: {@code ip netns exec NAME}. */
    public List<String> exec(int side) {
        requireCreated();
        return List.of(ip, "netns", "exec", namespace(side));
    }

    /** What to put in front of the gexrun launcher's command: it runs in the first namespace, where it binds. */
    @Override
    public List<String> launcherPrefix() {
        return exec(0);
    }

    /**
     * gexrun's options for a job across the pair: the rendezvous on the first namespace's address, and each rank
     * started through a script that enters namespace {@code rank % 2} ({@code --wrap} substitutes only the rank).
     */
    @Override
    public List<String> gexrunOptions() {
        requireCreated();
        return List.of("--bind", address(0), "--wrap", wrapScript + " %r");
    }

    /**
     * Runs {@code command} in namespace {@code side} and returns its output (stdout and stderr).
     *
     * @throws IllegalStateException with the output, if it exits non-zero
     */
    public String run(int side, String... command) {
        final List<String> words = new ArrayList<>(exec(side));
        words.addAll(List.of(command));
        return check(words, execute(words));
    }

    /**
     * A tool's absolute path: on PATH, or in the sbin directories, which a root shell has on PATH but a test JVM's
     * environment may not.
     */
    public static Optional<Path> tool(String name) {
        final List<String> dirs = new ArrayList<>();
        final String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(":")));
        }
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String d : dirs) {
            if (!d.isEmpty()) {
                final Path p = Path.of(d, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /** The effective user id, from /proc (no JDK API gives it without an extra module). */
    static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: treated as not root
        }
        return -1;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        final String who = context.getRequiredTestClass().getSimpleName();
        final long uid = effectiveUid();
        if (uid != 0) {
            skip(who, "not root (euid " + uid + "): network namespaces and veth pairs need root");
        }
        final Optional<Path> ipTool = tool("ip");
        if (ipTool.isEmpty()) {
            skip(who, "no ip command (Debian package iproute2; ./gexj.sh installs it as root)");
        }
        ip = ipTool.get().toString();
        removeStalePairs();
        shutdownHook = new Thread(this::remove, prefix + "-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook); // a JVM killed by Surefire's timeout still cleans up
        created = true;
        try {
            command(ip, "netns", "add", namespace(0));
            command(ip, "netns", "add", namespace(1));
            // created in place in both namespaces: no veth name in the host's namespace, so none can collide there
            command(ip, "link", "add", "gexveth0", "netns", namespace(0), "type", "veth", "peer", "name", "gexveth1",
                "netns", namespace(1));
            for (int side = 0; side < 2; side++) {
                command(ip, "-n", namespace(side), "addr", "add", address(side) + "/24", "dev", "gexveth" + side);
                command(ip, "-n", namespace(side), "link", "set", "gexveth" + side, "up");
                command(ip, "-n", namespace(side), "link", "set", "lo", "up");
            }
            directory = Files.createTempDirectory(prefix);
            if (directory.toString().matches(".*\\s.*")) {
                throw new IllegalStateException("temporary directory " + directory + " has white space: gexrun --wrap"
                    + " splits on it (set java.io.tmpdir)");
            }
            wrapScript = directory.resolve("netns-wrap");
            Files.writeString(wrapScript, """
                #!/bin/sh
                # gexrun --wrap of the namespace pair %1$s: rank $1 runs its command in %2$s when even, %3$s when odd
                case $(( $1 %% 2 )) in 0) ns=%2$s ;; *) ns=%3$s ;; esac
                shift
                exec %4$s netns exec "$ns" "$@"
                """.formatted(prefix, namespace(0), namespace(1), ip), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(wrapScript, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException | RuntimeException e) {
            remove();
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw (RuntimeException) e;
        }
        System.err.println(who + ": namespaces " + namespace(0) + " (" + address(0) + ") and " + namespace(1) + " ("
            + address(1) + ") joined by a veth pair");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        remove();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down: the hook runs remove() again, which does nothing
            }
        }
    }

    /**
     * Kills what still runs in the namespaces (ranks of a job that failed or timed out, all started by this pair's
     * tests), then deletes them, which deletes the veth pair, then the wrap script. Idempotent.
     */
    private synchronized void remove() {
        if (!created) {
            return;
        }
        created = false;
        for (int side = 0; side < 2; side++) {
            removeNamespace(namespace(side));
        }
        if (directory != null) {
            try {
                if (wrapScript != null) {
                    Files.deleteIfExists(wrapScript);
                }
                Files.deleteIfExists(directory);
            } catch (IOException ignored) {
                // a file left in the temporary directory is harmless
            }
        }
    }

    private void removeNamespace(String name) {
        final Result pids = execute(List.of(ip, "netns", "pids", name));
        if (pids.code == 0) {
            for (String line : pids.output.split("\\s+")) {
                if (line.matches("\\d+")) {
                    ProcessHandle.of(Long.parseLong(line)).ifPresent(p -> {
                        p.destroyForcibly();
                        try {
                            p.onExit().get(5, TimeUnit.SECONDS);
                        } catch (Exception ignored) {
                            // deleting the name does not need the process gone
                        }
                    });
                }
            }
        }
        final Result del = execute(List.of(ip, "netns", "del", name));
        if (del.code != 0 && !del.output.contains("No such file")) {
            System.err.println("NetnsPair: could not delete namespace " + name + ": " + del.output.strip());
        }
    }

    /** Pairs left by a test JVM that died without cleaning up (kill -9): their pid is no longer alive. */
    private void removeStalePairs() {
        final Result list = execute(List.of(ip, "netns", "list"));
        if (list.code != 0) {
            return;
        }
        for (String line : list.output.split("\n")) {
            final String name = line.strip().split("\\s+")[0];
            final Matcher m = OURS.matcher(name);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                System.err.println("NetnsPair: removing namespace " + name + " of a test JVM that is gone");
                removeNamespace(name);
            }
        }
    }

    private static void skip(String who, String why) {
        final String message = who + " skipped: " + why;
        System.err.println(message);
        Assumptions.abort(message);
    }

    private void requireCreated() {
        if (!created) {
            throw new IllegalStateException("namespace pair " + prefix + " is not set up: register NetnsPair with"
                + " @RegisterExtension in a static field; it is set up before the class's tests only");
        }
    }

    private static int checkSide(int side) {
        if (side != 0 && side != 1) {
            throw new IllegalArgumentException("side " + side + " is not 0 or 1");
        }
        return side;
    }

    private static void command(String... words) {
        check(List.of(words), execute(List.of(words)));
    }

    private static String check(List<String> words, Result r) {
        if (r.code != 0) {
            throw new IllegalStateException("'" + String.join(" ", words) + "' exited with " + r.code + ": "
                + r.output.strip());
        }
        return r.output;
    }

    private record Result(int code, String output) {
    }

    private static Result execute(List<String> words) {
        try {
            final Process p = new ProcessBuilder(words).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            final byte[] out = p.getInputStream().readAllBytes(); // small outputs: read to the end, then the exit
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "still running after " + COMMAND_SECONDS + " s");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
