package org.gexj.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ssh spawner's commands: words quoted for the remote shell, which passes on how the rank ended. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SshSpawnTest {
    @Test
    void theSshCommandIsTheUsersWordsBatchModeTheHostAndOneRemoteWord() {
        final SshSpawn ssh = new SshSpawn(List.of("h1"), 0, List.of("ssh", "-i", "/k/id"));
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("GEX_RANK", "3");
        env.put("GEX_JOB_SECRET", "-");
        assertEquals(List.of("ssh", "-i", "/k/id", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30",
                "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3", "root@h2",
                "cd /work/app && env GEX_RANK=3 GEX_JOB_SECRET=- /jdk/bin/java -cp a.jar:b.jar Main 'two words'"
                    + "; exit $?"),
            ssh.commandFor("root@h2", "/work/app", env, List.of("/jdk/bin/java", "-cp", "a.jar:b.jar", "Main",
                "two words")));
    }

    @Test
    void everyWordReachesTheRankExactlyThroughAShell(@TempDir Path temp) throws Exception {
        final Path dir = Files.createDirectory(temp.resolve("it's a dir"));
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("A", "x y'z \"q\" \\");
        env.put("B", "$HOME `id`");
        final List<String> rank = List.of("/bin/sh", "-c", "printf '%s|' \"$A\" \"$B\" \"$PWD\" \"$@\"", "sh", "a b",
            "it's", "$(echo no)", "*", "", "~", "a;b&&c");
        final String remote = SshSpawn.remoteCommand(dir.toString(), env, rank);
        final Result r = sh(remote);
        assertEquals(0, r.code, r.output);
        assertEquals("x y'z \"q\" \\|$HOME `id`|" + dir + "|a b|it's|$(echo no)|*||~|a;b&&c|", r.output);
    }

    @Test
    void theRemoteShellExitsWithTheRanksStatusAndASignalAs128PlusIt() throws Exception {
        assertEquals(3, sh(SshSpawn.remoteCommand("/", Map.of(), List.of("/bin/sh", "-c", "exit 3"))).code);
        // not exec'd: a rank killed by a signal is 128 + it, which ssh passes on (an exec'd one would give ssh's 255)
        assertEquals(137, sh(SshSpawn.remoteCommand("/", Map.of(), List.of("/bin/sh", "-c", "kill -9 $$"))).code);
        final Result missing = sh(SshSpawn.remoteCommand("/no/such/dir", Map.of(), List.of("/bin/true")));
        assertNotEquals(0, missing.code, "a working directory missing on the host fails the rank");
        assertTrue(missing.output.contains("/no/such/dir"), missing.output);
    }

    @Test
    void theRendezvousListensOnTheAddressThatRoutesToTheFirstHost() {
        assertEquals(InetAddress.ofLiteral("127.0.0.1"), SshSpawn.addressTowards("127.0.0.1"));
        assertEquals(InetAddress.ofLiteral("127.0.0.1"), SshSpawn.addressTowards("root@127.0.0.1"));
    }

    @Test
    void ranksOnHostsGetTheLaunchersGexAndLibfabricSettingsButNoSecret() {
        assertEquals(Map.of("GEX_CONDUIT", "udp", "FI_PROVIDER", "tcp"), GexRun.forwardedToHosts(Map.of(
            "GEX_CONDUIT", "udp", "FI_PROVIDER", "tcp", "GEX_JOB_SECRET", "00ff", "GEX_SSH", "ssh -i k",
            "GEX_CLASSPATH", "/x", "GEX_JVM_OPTS", "-Xmx1g", "PATH", "/bin", "HOME", "/root")));
    }

    @Test
    void sshsOwnFailureIsNamedAsALostSession() {
        assertEquals("lost its ssh session: ssh exited with 255 (connection refused or lost, or login failed: see"
            + " ssh's message above)", GexRun.why(255, true));
        assertEquals("was killed by signal 9", GexRun.why(137, true));
        assertEquals("exited with code 1", GexRun.why(1, true));
        assertEquals("was killed by signal 127", GexRun.why(255, false));
    }

    private record Result(int code, String output) {
    }

    private static Result sh(String command) throws Exception {
        final Process p = new ProcessBuilder("/bin/sh", "-c", command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "sh still running");
        return new Result(p.exitValue(), out);
    }
}
