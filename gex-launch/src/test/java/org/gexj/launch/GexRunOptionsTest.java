package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GexRunOptionsTest {
    @Test
    void parsesLikeGasnetrun() {
        final GexRunOptions o = GexRunOptions.parse("-n", "4", "--conduit", "smp", "-E", "A=b=c", "-v", "--",
            "testam", "10", "-in");
        assertEquals(4, o.ranks());
        assertEquals("smp", o.conduit());
        assertEquals(Map.of("A", "b=c"), o.env());
        assertTrue(o.verbose());
        assertEquals("org.gexj.testam.TestAm", o.mainClass());
        assertEquals(List.of("10", "-in"), o.args());
        final GexRunOptions p = GexRunOptions.parse("-n2", "com.example.Main");
        assertEquals(2, p.ranks());
        assertEquals("com.example.Main", p.mainClass());
        assertFalse(p.isJar());
        assertTrue(GexRunOptions.parse("-n", "1", "app.jar").isJar());
        // without --bind and --wrap: loopback and ranks started as they are, as before the options existed
        assertNull(p.bind());
        assertEquals(List.of(), p.wrap());
        assertEquals(List.of(), p.wrapFor(3));
    }

    @Test
    void bindAndWrapPutRanksElsewhere() {
        final GexRunOptions o = GexRunOptions.parse("-n", "4", "--bind", "10.231.7.1", "--wrap",
            " ip netns exec  gexns%r ", "--conduit", "udp", "--", "Main", "--wrap", "x");
        assertEquals(InetAddress.ofLiteral("10.231.7.1"), o.bind());
        assertEquals(List.of("ip", "netns", "exec", "gexns%r"), o.wrap());
        assertEquals(List.of("ip", "netns", "exec", "gexns0"), o.wrapFor(0));
        assertEquals(List.of("ip", "netns", "exec", "gexns13"), o.wrapFor(13));
        assertEquals("udp", o.conduit());
        assertEquals(List.of("--wrap", "x"), o.args(), "options after the program are its own");
        // every %r of every word, and %% for a literal %
        assertEquals(List.of("ssh", "node%r-3", "env", "R=3", "P=50%"),
            GexRunOptions.parse("-n", "4", "--wrap", "ssh node%%r-%r env R=%r P=50%%", "Main").wrapFor(3));
        assertEquals(InetAddress.ofLiteral("::1"), GexRunOptions.parse("-n", "1", "--bind", "::1", "Main").bind());
    }

    @Test
    void badBindAndWrapValuesAreNamed() {
        assertTrue(message("-n", "2", "--bind", "node7", "Main").contains("--bind node7 is not an IP address"));
        assertTrue(message("-n", "2", "--bind", "10.0.0.256", "Main").contains("10.0.0.256"));
        assertTrue(message("-n", "2", "--bind", "0.0.0.0", "Main").contains("--bind 0.0.0.0 is a wildcard"));
        assertTrue(message("-n", "2", "--bind", "239.1.1.1", "Main").contains("--bind 239.1.1.1 is a multicast"));
        assertTrue(message("-n", "2", "--bind").contains("--bind needs a value"));
        assertTrue(message("-n", "2", "--wrap", "  ", "Main").contains("--wrap '  ' is empty"));
        assertTrue(message("-n", "2", "--wrap", "ssh node%d", "Main").contains("'node%d'"));
        assertTrue(message("-n", "2", "--wrap", "ssh node%", "Main").contains("--wrap 'ssh node%'"));
        assertTrue(message("-n", "2", "--wrap").contains("--wrap needs a value"));
    }

    @Test
    void badArgumentsNameTheValueAndTheRange() {
        assertTrue(message("-n", "0", "testam").contains("-n 0 outside [1, 1024]"));
        assertTrue(message("-n", "x", "testam").contains("x"));
        assertTrue(message("testam").contains("-n N"));
        assertTrue(message("-n", "2").contains("no program"));
        assertTrue(message("-n", "2", "--bogus", "testam").contains("--bogus"));
        assertTrue(message("-n", "2", "-E", "novalue", "testam").contains("novalue"));
        assertTrue(message("-n").contains("needs a value"));
    }

    @Test
    void hostsPlaceRanksRoundRobinOrInBlocks() {
        final GexRunOptions round = GexRunOptions.parseWith(null, "-n", "5", "--hosts", "a,root@b, c",
            "--conduit", "udp", "Main");
        assertEquals(List.of("a", "root@b", "c"), round.ssh().hosts());
        assertEquals(List.of("a", "root@b", "c", "a", "root@b"),
            List.of(0, 1, 2, 3, 4).stream().map(round.ssh()::host).toList());
        assertEquals(List.of("ssh"), round.ssh().command());
        assertFalse(round.ranksAreLocal());
        final GexRunOptions blocks = GexRunOptions.parseWith(null, "-n", "5", "--hosts", "a,b", "--ppn", "3", "Main");
        assertEquals(List.of("a", "a", "a", "b", "b"),
            List.of(0, 1, 2, 3, 4).stream().map(blocks.ssh()::host).toList());
        // the ssh command: --ssh, else GEX_SSH, else ssh
        assertEquals(List.of("ssh", "-i", "/k/id", "-p", "2222"), GexRunOptions.parseWith("ssh -i /k/id",
            "-n", "2", "--hosts", "a", "--ssh", " ssh -i /k/id  -p 2222 ", "Main").ssh().command());
        assertEquals(List.of("ssh", "-i", "/k/id"), GexRunOptions.parseWith(" ssh -i /k/id ", "-n", "2", "--hosts", "a",
            "Main").ssh().command());
        assertNull(GexRunOptions.parseWith("ssh -i /k/id", "-n", "2", "Main").ssh(),
            "GEX_SSH alone starts nothing over ssh");
        assertTrue(GexRunOptions.parseWith(null, "-n", "2", "Main").ranksAreLocal());
        assertEquals(GexRunOptions.Request.HELP,
            GexRunOptions.request("--hosts", "a", "--ppn", "2", "--ssh", "s", "-h"));
    }

    @Test
    void badHostsPpnAndSshNameTheValueAndWhatIsAllowed() {
        assertTrue(message("-n", "2", "--hosts", "", "Main").contains("--hosts '' is empty"));
        assertTrue(message("-n", "2", "--hosts", "a,,b", "Main").contains("--hosts a,,b: host 2 of 3 is empty"));
        assertTrue(message("-n", "2", "--hosts", "a,", "Main").contains("host 2 of 2 is empty"));
        assertTrue(message("-n", "2", "--hosts", "-oProxyCommand=x", "Main")
            .contains("'-oProxyCommand=x' is not [user@]host"));
        assertTrue(message("-n", "2", "--hosts", "a b", "Main").contains("'a b' is not [user@]host"));
        assertTrue(message("-n", "2", "--hosts", "a", "--ppn", "0", "Main").contains("--ppn 0 outside [1, 1024]"));
        assertTrue(message("-n", "2", "--hosts", "a", "--ppn", "two", "Main")
            .contains("--ppn two is not a number; ranks per host must be in [1, 1024]"));
        assertTrue(message("-n", "7", "--hosts", "a,b", "--ppn", "3", "Main").contains("-n 7 does not fit: --hosts"
            + " names 2 host(s) x --ppn 3 = 6 ranks; give more hosts or a --ppn of at least 4"));
        assertTrue(message("-n", "2", "--ppn", "2", "Main").contains("--ppn needs --hosts"));
        assertTrue(message("-n", "2", "--ssh", "ssh -v", "Main").contains("--ssh needs --hosts"));
        assertTrue(message("-n", "2", "--hosts", "a", "--ssh", " ", "Main").contains("--ssh ' ' is empty"));
        assertTrue(message("-n", "2", "--hosts", "a", "--wrap", "x %r", "Main")
            .contains("--wrap and --hosts do not combine"));
        assertTrue(message("-n", "2", "--hosts").contains("--hosts needs a value"));
        assertTrue(message("-n", "2", "--hosts", "a", "--ppn").contains("--ppn needs a value"));
    }

    private static String message(String... argv) {
        return assertThrows(IllegalArgumentException.class, () -> GexRunOptions.parseWith(null, argv)).getMessage();
    }

    @Test
    void childCommandCarriesTheJvmFlagsAndTheProgram() throws Exception {
        final GexRunOptions o = GexRunOptions.parse("-n", "2", "testqueue", "-l");
        final List<String> cmd = GexRun.childCommand(o, "/jdk/bin/java", "a.jar:b.jar", "-Xmx64m -Dx=1");
        final List<String> expected = new ArrayList<>(List.of("/jdk/bin/java"));
        expected.addAll(GexRun.JVM_FLAGS); // GexRankTest checks what they are
        expected.addAll(List.of("-Xmx64m", "-Dx=1", "-cp", "a.jar:b.jar", "org.gexj.testqueue.TestQueue", "-l"));
        assertEquals(expected, cmd);
        assertThrows(IllegalArgumentException.class,
            () -> GexRun.childCommand(GexRunOptions.parse("-n", "1", "/no/such.jar"), "java", "", null));
        // --wrap goes in front of each rank's command, not into it
        assertEquals(cmd, GexRun.childCommand(GexRunOptions.parse("-n", "2", "--wrap", "ip netns exec ns%r",
            "testqueue", "-l"), "/jdk/bin/java", "a.jar:b.jar", "-Xmx64m -Dx=1"));
    }
}
