package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** gexrank's program resolution, and the JVM options it shares with gexrun. */
class GexRankTest {
    static volatile String[] seen;

    public static final class Program {
        public static void main(String[] args) {
            seen = args;
        }
    }

    @Test
    void aMainClassRunsInThisJvmWithItsArguments() throws Throwable {
        final MethodHandle main = GexRank.mainOf(Program.class.getName());
        main.invokeExact(new String[] {"a", "b"});
        assertEquals(List.of("a", "b"), List.of(seen));
    }

    @Test
    void aLeadingSeparatorIsDroppedAsGexrunDoes() {
        assertEquals(List.of("testam", "10"), List.of(GexRank.withoutSeparator(new String[] {"--", "testam", "10"})));
        assertEquals(List.of("testam", "--"), List.of(GexRank.withoutSeparator(new String[] {"testam", "--"})));
        assertEquals(List.of(), List.of(GexRank.withoutSeparator(new String[] {"--"})));
    }

    @Test
    void unknownProgramsAndJarsWithoutMainClassAreNamed() throws Exception {
        final IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
            () -> GexRank.mainOf("com.example.Nope"));
        assertEquals("class com.example.Nope is not on the class path (GEX_CLASSPATH adds entries)",
            missing.getMessage());
        // testam's short name resolves to its class, which gex-core's tests do not have on their class path
        final IllegalArgumentException testam = assertThrows(IllegalArgumentException.class,
            () -> GexRank.mainOf("testam"));
        assertEquals("class org.gexj.testam.TestAm is not on the class path (GEX_CLASSPATH adds entries)",
            testam.getMessage());
        final IllegalArgumentException noMain = assertThrows(IllegalArgumentException.class,
            () -> GexRank.mainOf(GexRankTest.class.getName()));
        assertEquals("class " + GexRankTest.class.getName() + " has no public static void main(String[])",
            noMain.getMessage());
        final Path jar = Files.createTempFile("gexrank", ".jar");
        try {
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), new Manifest())) {
                out.flush();
            }
            final IllegalArgumentException noMainClass = assertThrows(IllegalArgumentException.class,
                () -> GexRank.mainOf(jar.toString()));
            assertEquals("program jar " + jar + " has no Main-Class in its manifest", noMainClass.getMessage());
        } finally {
            Files.delete(jar);
        }
        assertThrows(IllegalArgumentException.class, () -> GexRank.mainOf("/nonexistent/x.jar"));
    }

    @Test
    void theRanksJvmOptionsComeFromTheSharedArgumentFile() {
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED",
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED",
            "-Dagrona.disable.bounds.checks=true", "-XX:CompileCommand=quiet",
            "-XX:CompileCommand=inline,org.gexj.rma.Rma::copyOne",
            "-XX:CompileCommand=inline,org.gexj.rma.Rma::copyPaired",
            "-XX:CompileCommand=inline,org.gexj.rma.Rma::copyStrided",
            "-XX:CompileCommand=inline,org.gexj.rma.VisDirect::paired",
            "-XX:CompileCommand=inline,org.gexj.rma.VisDirect::strided",
            "-XX:CompileCommand=inline,org.gexj.rma.CrossMappedRmaEngine::copyPaired"), GexRun.JVM_FLAGS);
    }
}
