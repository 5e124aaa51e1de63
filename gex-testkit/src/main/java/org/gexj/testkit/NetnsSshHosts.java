package org.gexj.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two hosts reached over ssh, for a test class: the two network namespaces of a {@link NetnsPair}, each running an
 * sshd of its own on its address (port 22), which lets root in with a key generated for the class, so that
 * {@code gexrun --hosts} and {@code mpirun --host} start ranks in them as on two machines. The launcher runs in the
 * first namespace ({@link #launcherPrefix()}) and reaches both hosts by their addresses; {@link #gexrunOptions()} names
 * them and the ssh command (the class's key, a known_hosts file with both host keys, strict host key checking).
 *
 * <p>Both sshds are started before the class's tests and stopped after, with the pair (which kills whatever still
 * runs in the namespaces). Not root: skipped, as {@link NetnsPair} is. Root without OpenSSH: the class fails, naming
 * the packages ({@code ./gexj.sh} installs them). Register it in a static field:
 * {@code @RegisterExtension static final NetnsSshHosts HOSTS = new NetnsSshHosts();}. Constructing one does nothing on
 * the system (kit rank processes load the test class too).
 *
 * <p>{@link #sharingConnections()} gives hosts whose gexrun ssh command shares one connection per host (OpenSSH's
 * {@code ControlMaster}), for classes that start dozens of jobs: each rank's session then skips the key exchange and
 * login, about 0.75 s each on this machine. Start-up measurements and tests of lost ssh sessions use
 * {@code new NetnsSshHosts()}: a login per session, as a job's first contact with a cluster has.
 */
public final class NetnsSshHosts implements BeforeAllCallback, AfterAllCallback, KitHosts {
    private static final long COMMAND_SECONDS = 30;
    /** How long both sshds have to accept a login after they start. */
    private static final long READY_SECONDS = 20;

    private final boolean share;
    private final NetnsPair pair = new NetnsPair();
    private final Process[] sshd = new Process[2];
    private Path directory;
    private List<String> ssh = List.of();

    /** Hosts whose sessions each log in. */
    public NetnsSshHosts() {
        this(false);
    }

    private NetnsSshHosts(boolean share) {
        this.share = share;
    }

    /** Hosts whose gexrun sessions share one ssh connection per host, opened by the first and kept for 60 s idle. */
    public static NetnsSshHosts sharingConnections() {
        return new NetnsSshHosts(true);
    }

    /** The namespaces and their link. */
    public NetnsPair pair() {
        return pair;
    }

    /** Host {@code side} (0 or 1) as {@code --hosts} names it: its namespace's address. */
    public String host(int side) {
        return pair.address(side);
    }

    /** The ssh command that logs in to both hosts as root: for {@code --ssh} or {@code GEX_SSH}. */
    public List<String> sshCommand() {
        if (ssh.isEmpty()) {
            throw new IllegalStateException("the ssh hosts are not set up: register NetnsSshHosts with"
                + " @RegisterExtension in a static field; it is set up before the class's tests only");
        }
        return ssh;
    }

    /** Both hosts' addresses: gexrun --hosts and mpirun --map-by node put rank {@code r} on host {@code r % 2}. */
    @Override
    public List<String> addresses() {
        return List.of(host(0), host(1));
    }

    /** Two ranks per host at least: every rank has a peer beside it and peers across the link. */
    @Override
    public int ranks(int ranks) {
        return Math.max(ranks, 4);
    }

    /**
     * gexrun's options for a job on both hosts, ranks round robin: {@code --hosts A,B --ssh COMMAND}, the command
     * sharing connections when these hosts do.
     */
    @Override
    public List<String> gexrunOptions() {
        return List.of("--hosts", host(0) + "," + host(1), "--ssh", String.join(" ", gexrunSsh()));
    }

    private List<String> gexrunSsh() {
        final List<String> command = new ArrayList<>(sshCommand());
        if (share) {
            // ControlPersist: a master of its own, so that every rank's ssh exits with its rank, the first too
            command.addAll(List.of("-o", "ControlMaster=auto", "-o", "ControlPath=" + directory.resolve("cm-%C"),
                "-o", "ControlPersist=60"));
        }
        return command;
    }

    /**
     * mpirun's options for a job on both hosts, ranks round robin as gexrun places them ({@code --map-by node}): the
     * hosts, and the ssh command that starts Open MPI's orted on the second. That command also passes
     * {@code PMIX_MCA_psec} (the sshds accept it), which mpirun gives its ranks but not its remote orteds.
     */
    public List<String> mpirunOptions() {
        final List<String> agent = new ArrayList<>(sshCommand());
        agent.addAll(List.of("-o", "SetEnv=PMIX_MCA_psec=native"));
        return List.of("--host", host(0) + "," + host(1), "--map-by", "node", "--mca", "plm_rsh_agent",
            String.join(" ", agent), "--mca", "plm_rsh_no_tree_spawn", "1");
    }

    /** What to put in front of the launcher's command: it runs in the first namespace, host 0. */
    @Override
    public List<String> launcherPrefix() {
        return pair.launcherPrefix();
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        pair.beforeAll(context); // skips the class when not root
        final String who = context.getRequiredTestClass().getSimpleName();
        try {
            final Path sshdTool = Path.of("/usr/sbin/sshd"); // sshd re-executes itself: it must be started by path
            final String sshTool = NetnsPair.tool("ssh").map(Path::toString).orElse(null);
            final String keygen = NetnsPair.tool("ssh-keygen").map(Path::toString).orElse(null);
            if (!Files.isExecutable(sshdTool) || sshTool == null || keygen == null) {
                throw new IllegalStateException(who + ": OpenSSH is missing (/usr/sbin/sshd, ssh, ssh-keygen):"
                    + " ./gexj.sh installs it as root, or apt-get install openssh-server openssh-client");
            }
            directory = Files.createTempDirectory("gexssh");
            if (directory.toString().matches(".*\\s.*")) {
                throw new IllegalStateException("temporary directory " + directory + " has white space: gexrun --ssh"
                    + " splits on it (set java.io.tmpdir)");
            }
            final Path clientKey = directory.resolve("client_key");
            run(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "gexj-test-client", "-f", clientKey.toString());
            Files.copy(directory.resolve("client_key.pub"), directory.resolve("authorized_keys"));
            final StringBuilder knownHosts = new StringBuilder();
            Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
            for (int side = 0; side < 2; side++) {
                final Path hostKey = directory.resolve("host_key_" + side);
                run(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "gexj-test-host-" + side, "-f", hostKey.toString());
                knownHosts.append(host(side)).append(' ').append(publicKey(hostKey)).append('\n');
                final Path config = directory.resolve("sshd_config_" + side);
                Files.writeString(config, sshdConfig(side, hostKey), StandardCharsets.UTF_8);
                final List<String> command = new ArrayList<>(pair.exec(side));
                command.addAll(List.of(sshdTool.toString(), "-D", "-e", "-f", config.toString()));
                final File log = directory.resolve("sshd_" + side + ".log").toFile();
                sshd[side] = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            }
            final Path knownHostsFile = directory.resolve("known_hosts");
            Files.writeString(knownHostsFile, knownHosts, StandardCharsets.UTF_8);
            // -F /dev/null: neither the user's nor the system's ssh configuration changes what the tests run
            ssh = List.of(sshTool, "-F", "/dev/null", "-i", clientKey.toString(), "-o", "IdentitiesOnly=yes",
                "-o", "UserKnownHostsFile=" + knownHostsFile, "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR", "-l", "root");
            for (int side = 0; side < 2; side++) {
                awaitLogin(side);
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            stop();
            pair.afterAll(context);
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw e;
        }
        System.err.println(who + ": sshd on " + host(0) + " (" + pair.namespace(0) + ") and " + host(1) + " ("
            + pair.namespace(1) + "), root logs in with " + directory.resolve("client_key"));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
        pair.afterAll(context);
    }

    private String sshdConfig(int side, Path hostKey) {
        final Path dir = directory;
        return String.join("\n",
            "ListenAddress " + host(side),
            "Port 22",
            "HostKey " + hostKey,
            "PidFile " + dir.resolve("sshd_" + side + ".pid"),
            "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            // the key files are in a temporary directory under /tmp, which is world-writable
            "StrictModes no",
            "UseDNS no",
            // mpirun's ssh command passes PMIx's security setting to the orted it starts (see mpirunOptions)
            "AcceptEnv PMIX_MCA_*",
            "PrintMotd no",
            "PrintLastLog no",
            // a job of 8 ranks opens 4 sessions per host at once; the default starts refusing at 10
            "MaxStartups 100:30:200",
            "MaxSessions 100",
            "LogLevel ERROR",
            "");
    }

    /** Waits until root logs in to host {@code side} from the launcher's namespace, or fails with sshd's log. */
    private void awaitLogin(int side) throws IOException, InterruptedException {
        final List<String> probe = new ArrayList<>(pair.exec(0));
        probe.addAll(ssh);
        probe.addAll(List.of("-o", "BatchMode=yes", host(side), "true"));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_SECONDS);
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!sshd[side].isAlive()) {
                throw new IllegalStateException("sshd in " + pair.namespace(side) + " exited with "
                    + sshd[side].exitValue() + ": " + log(side));
            }
            final Process p = new ProcessBuilder(probe).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            final byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            } else if (p.exitValue() == 0) {
                return;
            }
            last = new String(out, StandardCharsets.UTF_8).strip();
            Thread.sleep(200);
        }
        throw new IllegalStateException("root cannot log in to " + host(side) + " over ssh after " + READY_SECONDS
            + " s: " + last + "; sshd's log: " + log(side));
    }

    private String log(int side) {
        try {
            return Files.readString(directory.resolve("sshd_" + side + ".log"), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * Ends the shared connections, stops both sshds (their sessions' ranks die with the namespaces) and deletes the
     * keys. Idempotent.
     */
    private synchronized void stop() {
        if (share && !ssh.isEmpty()) {
            for (int side = 0; side < 2; side++) {
                final List<String> exit = new ArrayList<>(pair.exec(0));
                exit.addAll(gexrunSsh());
                exit.addAll(List.of("-O", "exit", host(side)));
                try {
                    new ProcessBuilder(exit).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start()
                        .waitFor(5, TimeUnit.SECONDS);
                } catch (IOException e) {
                    // no master to end: the namespaces' teardown ends whatever is left
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (int side = 0; side < 2; side++) {
            final Process p = sshd[side];
            if (p != null && p.isAlive()) {
                p.destroy();
                try {
                    if (!p.waitFor(5, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
            sshd[side] = null;
        }
        if (directory != null) {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
            directory = null;
        }
        ssh = List.of();
    }

    private static String publicKey(Path privateKey) throws IOException {
        final String[] words = Files.readString(Path.of(privateKey + ".pub"), StandardCharsets.UTF_8).strip()
            .split("\\s+");
        return words[0] + " " + words[1];
    }

    private static void run(String... command) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("'" + String.join(" ", command) + "' still running after "
                + COMMAND_SECONDS + " s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("'" + String.join(" ", command) + "' exited with " + p.exitValue() + ": "
                + out.strip());
        }
    }
}
