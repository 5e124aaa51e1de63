package org.gexj.launch;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * gexrun's ssh spawner ({@code --hosts}, {@code --ppn}, {@code --ssh}): which host each rank runs on, and the ssh
 * command that starts it there, as GASNet's ssh spawner does. The launcher's java, class path and working directory
 * are assumed to exist at the same paths on every host.
 *
 * <p>A rank's command is {@code COMMAND -o BatchMode=yes -o ... HOST 'cd DIR && env VAR=VALUE... JAVA ...; exit $?'}:
 * every word is quoted for the remote shell. The remote shell waits for the rank instead of exec'ing it, so a rank
 * killed by a signal reaches the launcher as ssh's exit status 128 + signal, as a local rank's does; ssh's own failures
 * (no connection, login refused, connection lost) are its status 255. The job secret is never in a command line: the
 * rank is told {@code GEX_JOB_SECRET=-} and reads the secret from the first line of its stdin, which the launcher
 * writes into ssh.
 *
 * @param hosts   the hosts, {@code [user@]host} each, in order
 * @param ppn     ranks per host in blocks ({@code --ppn}), or 0 for round robin
 * @param command the ssh command's words ({@code --ssh}, else {@code GEX_SSH}, else {@code ssh})
 */
public record SshSpawn(List<String> hosts, int ppn, List<String> command) {
    /** What {@code ssh} exits with when it fails itself rather than passing on the remote command's status. */
    public static final int SSH_FAILED = 255;
    /**
     * Options put after the command's own words (options given first win in OpenSSH, so the user's take precedence):
     * never a question that nobody will answer, a bounded wait for a host that does not answer, and a connection that
     * dies silently noticed within 30 s (ssh then exits with 255, which ends the job).
     */
    static final List<String> OPTIONS = List.of("-o", "BatchMode=yes", "-o", "ConnectTimeout=30",
        "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3");
    /** A host as ssh takes it: letters, digits and {@code . _ - : %} (IPv6 literals, scopes), an optional user. */
    private static final Pattern HOST = Pattern.compile("([A-Za-z0-9._-]+@)?[A-Za-z0-9._:%-]+");
    /** Words the remote shell takes literally without quotes. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

    public SshSpawn {
        hosts = List.copyOf(hosts);
        command = List.copyOf(command);
    }

    /**
     * The spawner of a command line, or null without {@code --hosts}.
     *
     * @param ranks       {@code -n}
     * @param hosts       {@code --hosts}'s value, or null
     * @param ppn         {@code --ppn}'s value, or null
     * @param sshOption   {@code --ssh}'s value, or null
     * @param sshVariable the launcher's {@code GEX_SSH}, or null
     * @throws IllegalArgumentException naming the bad value and what is allowed
     */
    static SshSpawn parse(int ranks, String hosts, String ppn, String sshOption, String sshVariable) {
        if (hosts == null) {
            if (ppn != null || sshOption != null) {
                throw new IllegalArgumentException((ppn != null ? "--ppn" : "--ssh") + " needs --hosts (the hosts"
                    + " to start the ranks on over ssh)");
            }
            return null;
        }
        final List<String> names = parseHosts(hosts);
        final int perHost = ppn == null ? 0 : parsePpn(ppn);
        if (perHost > 0 && (long) perHost * names.size() < ranks) {
            throw new IllegalArgumentException("-n " + ranks + " does not fit: --hosts names " + names.size()
                + " host(s) x --ppn " + perHost + " = " + perHost * names.size() + " ranks; give more hosts or a --ppn"
                + " of at least " + (ranks + names.size() - 1) / names.size());
        }
        final List<String> words;
        if (sshOption != null) {
            words = words("--ssh", sshOption);
        } else if (sshVariable != null && !sshVariable.isBlank()) {
            words = words("GEX_SSH", sshVariable);
        } else {
            words = List.of("ssh");
        }
        return new SshSpawn(names, perHost, words);
    }

    /** The host rank {@code rank} runs on: round robin, or blocks of {@link #ppn()} ranks. */
    public String host(int rank) {
        if (rank < 0) {
            throw new IllegalArgumentException("rank " + rank + " is negative");
        }
        return hosts.get(ppn == 0 ? rank % hosts.size() : rank / ppn);
    }

    /**
     * The words that start {@code rankCommand} on {@code host}: the ssh command, {@code -o BatchMode=yes} and
     * time-outs, the host, then one word the remote shell runs:
     * {@code cd DIRECTORY && env VAR=VALUE... RANK-COMMAND...; exit $?}.
     */
    public List<String> commandFor(String host, String directory, Map<String, String> environment,
                                   List<String> rankCommand) {
        final List<String> words = new ArrayList<>(command);
        words.addAll(OPTIONS);
        words.add(host);
        words.add(remoteCommand(directory, environment, rankCommand));
        return words;
    }

    /**
     * What the remote shell runs. Not {@code exec}: the shell waits for the rank and exits with its status, so a rank
     * killed by signal N gives 128 + N (an exec'd rank killed by a signal makes ssh exit with 255, as when the
     * connection is lost). {@code ; exit $?} keeps shells that exec their last command from doing so.
     */
    static String remoteCommand(String directory, Map<String, String> environment, List<String> rankCommand) {
        final StringBuilder s = new StringBuilder("cd ").append(quote(directory)).append(" && env");
        environment.forEach((k, v) -> s.append(' ').append(quote(k + "=" + v)));
        for (String w : rankCommand) {
            s.append(' ').append(quote(w));
        }
        return s.append("; exit $?").toString();
    }

    /** {@code word} for a POSIX shell: as it is when plain, else in single quotes (a quote in it as {@code '"'"'}). */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\"'\"'") + "'";
    }

    /**
     * The address of this host that routes to {@code host} (no packet is sent: a connected UDP socket only picks its
     * route), for the rendezvous to listen on and for {@code GEX_BOOTSTRAP} to name.
     *
     * @throws IllegalArgumentException when {@code host} does not resolve or has no route, naming {@code --bind}
     */
    static InetAddress addressTowards(String host) {
        final String name = host.substring(host.indexOf('@') + 1);
        final InetAddress target;
        try {
            target = InetAddress.getByName(name);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--hosts: " + name + " does not resolve here, so gexrun cannot tell"
                + " which of its addresses the ranks reach it by: give it with --bind ADDRESS", e);
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target, 9);
            final InetAddress local = probe.getLocalAddress();
            if (local == null || local.isAnyLocalAddress()) {
                throw new IOException("no route");
            }
            return local;
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new IllegalArgumentException("--hosts: no route from here to " + name + " (" + target.getHostAddress()
                + "): give the address the ranks reach this host by with --bind ADDRESS", e);
        }
    }

    private static List<String> parseHosts(String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException("--hosts '" + value + "' is empty: give host names, comma-separated");
        }
        final String[] parts = value.split(",", -1);
        final List<String> names = new ArrayList<>(parts.length);
        for (int i = 0; i < parts.length; i++) {
            final String h = parts[i].strip();
            if (h.isEmpty()) {
                throw new IllegalArgumentException("--hosts " + value + ": host " + (i + 1) + " of " + parts.length
                    + " is empty");
            }
            if (h.startsWith("-") || !HOST.matcher(h).matches()) {
                throw new IllegalArgumentException("--hosts " + value + ": '" + h + "' is not [user@]host (letters,"
                    + " digits and . _ - : %, not starting with -)");
            }
            names.add(h);
        }
        return names;
    }

    private static int parsePpn(String value) {
        final int k;
        try {
            k = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--ppn " + value + " is not a number; ranks per host must be in [1, "
                + GexRunOptions.MAX_RANKS + "]");
        }
        if (k < 1 || k > GexRunOptions.MAX_RANKS) {
            throw new IllegalArgumentException("--ppn " + k + " outside [1, " + GexRunOptions.MAX_RANKS + "]");
        }
        return k;
    }

    /** A command's words, split on white space (as {@code --wrap}'s): no word may be quoted. */
    private static List<String> words(String source, String value) {
        final String trimmed = value.strip();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException(source + " '" + value + "' is empty: give the ssh command, e.g. 'ssh -i"
                + " KEY'");
        }
        return List.of(trimmed.split("\\s+"));
    }
}
