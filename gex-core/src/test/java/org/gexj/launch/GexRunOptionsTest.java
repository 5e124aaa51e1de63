package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GexRunOptionsTest {
    @Test
    void parsesLikeGasnetrun() {
        final GexRunOptions o = GexRunOptions.parse("-n", "4", "--conduit", "smp", "-E", "A=b=c", "-v", "--", "testam", "10", "-in");
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

    private static String message(String... argv) {
        return assertThrows(IllegalArgumentException.class, () -> GexRunOptions.parse(argv)).getMessage();
    }

    @Test
    void childCommandCarriesTheJvmFlagsAndTheProgram() throws Exception {
        final GexRunOptions o = GexRunOptions.parse("-n", "2", "testqueue", "-l");
        final List<String> cmd = GexRun.childCommand(o, "/jdk/bin/java", "a.jar:b.jar", "-Xmx64m -Dx=1");
        assertEquals(List.of("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "--add-opens",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true", "-Xmx64m",
            "-Dx=1", "-cp", "a.jar:b.jar", "org.gexj.testqueue.TestQueue", "-l"), cmd);
        assertThrows(IllegalArgumentException.class,
            () -> GexRun.childCommand(GexRunOptions.parse("-n", "1", "/no/such.jar"), "java", "", null));
    }
}
