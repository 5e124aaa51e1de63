package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.tools.ToolProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module descriptors as a user on the module path meets them: the API works (the smp conduit and the bootstraps
 * are found through their {@code provides}), the core needs nothing but Agrona, and the library-internal packages are
 * out of reach, at compile time and by reflection.
 */
class ModulePathIT {
    private static final Path LIB = Jobs.ROOT.resolve("gex-dist/target/lib");

    /**
     * GEX/J's own modules and Agrona: what a user puts on the module path (the launcher and the PMIx bootstrap
     * included, so that their descriptors are checked too).
     */
    private static String modulePath() throws IOException {
        try (var jars = Files.list(LIB)) {
            return jars.map(Path::toString)
                .filter(j -> j.matches(
                    ".*/(gex-core|gex-am|gex-rma|gex-coll|conduit-smp|gex-launch|gex-bootstrap-pmix|agrona)"
                        + "-[^/]*\\.jar"))
                .collect(Collectors.joining(":"));
        }
    }

    private static final String USER_MODULE = """
        module user {
            requires org.gexj.coll;
            uses org.gexj.spi.BootstrapProvider;
        }
        """;

    private static final String USER_MAIN = """
        package user;

        import org.gexj.*;
        import org.gexj.am.*;
        import org.gexj.rma.Rma;
        import java.lang.foreign.*;

        public final class Main {
            public static void main(String[] args) throws Exception {
                try (Client client = Gex.init("USER")) {
                    Segment seg = client.attachSegment(4096);
                    Am am = Am.of(client);
                    int[] got = new int[1];
                    int h = am.register(AmHandler.shortRequest(1, (t, a) -> got[0] = a.get(0)));
                    am.requestShort(0, h, 42);
                    while (got[0] == 0) client.poll();
                    Rma.of(client).putVal(0, 8, got[0], 4);
                    System.out.println("value " + seg.memory().get(ValueLayout.JAVA_INT, 8) + " over "
                        + client.capabilities().conduit());
                    MemorySegment sum = MemorySegment.ofArray(new long[1]);
                    org.gexj.coll.Coll.of(client).reduceToAllNb(org.gexj.coll.Team.job(client), sum,
                        MemorySegment.ofArray(new long[] {7}), org.gexj.rma.AtomicType.INT64, 1,
                        org.gexj.coll.ReduceOp.ADD).await();
                    System.out.println("sum " + sum.get(ValueLayout.JAVA_LONG, 0));
                    // the bootstraps are services of gex-core and gex-bootstrap-pmix; the core needs no JMX
                    System.out.println("bootstraps " + java.util.ServiceLoader
                        .load(org.gexj.spi.BootstrapProvider.class).stream().map(p -> p.get().name()).sorted()
                        .toList());
                    System.out.println("core requires " + Client.class.getModule().getDescriptor().requires().stream()
                        .map(r -> r.name()).sorted().toList());
                    // reflection cannot open what the descriptors do not export
                    try {
                        Class.forName("org.gexj.internal.CoreAccess").getMethod("get").invoke(null);
                        System.out.println("internal reachable");
                    } catch (IllegalAccessException expected) {
                        System.out.println("internal closed");
                    }
                    try {
                        Event.class.getDeclaredMethod("begin", int.class).setAccessible(true);
                        System.out.println("Event.begin reachable");
                    } catch (java.lang.reflect.InaccessibleObjectException expected) {
                        System.out.println("Event.begin closed");
                    }
                }
            }
        }
        """;

    private static final String USER_INTERNAL = """
        package user;

        public final class Internal {
            public static Object access() {
                return org.gexj.internal.CoreAccess.get();
            }
        }
        """;

    /** gex-core exports its bootstrap package to gex-launch and gex-bootstrap-pmix only. */
    private static final String USER_BOOTSTRAP = """
        package user;

        public final class Bootstrap {
            public static Object secret() {
                return org.gexj.bootstrap.JobSecret.random(4);
            }
        }
        """;

    private static int javac(List<String> args, ByteArrayOutputStream err) {
        return ToolProvider.getSystemJavaCompiler().run(null, null, err, args.toArray(String[]::new));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aUserModuleRunsTheApiAndCannotReachTheInternals(@TempDir Path dir) throws Exception {
        final Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("user"));
        Files.writeString(src.resolve("module-info.java"), USER_MODULE);
        Files.writeString(src.resolve("user/Main.java"), USER_MAIN);
        final Path out = dir.resolve("out");
        final String mp = modulePath();

        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, javac(List.of("-d", out.toString(), "-p", mp, src.resolve("module-info.java").toString(),
            src.resolve("user/Main.java").toString()), err), err.toString(StandardCharsets.UTF_8));

        Files.writeString(src.resolve("user/Internal.java"), USER_INTERNAL);
        final ByteArrayOutputStream internalErr = new ByteArrayOutputStream();
        assertNotEquals(0, javac(List.of("-d", dir.resolve("out2").toString(), "-p", mp,
            src.resolve("module-info.java").toString(), src.resolve("user/Internal.java").toString()), internalErr));
        assertTrue(internalErr.toString(StandardCharsets.UTF_8).contains("package org.gexj.internal is not visible"),
            internalErr.toString(StandardCharsets.UTF_8));

        Files.writeString(src.resolve("user/Bootstrap.java"), USER_BOOTSTRAP);
        final ByteArrayOutputStream bootstrapErr = new ByteArrayOutputStream();
        assertNotEquals(0, javac(List.of("-d", dir.resolve("out3").toString(), "-p", mp,
            src.resolve("module-info.java").toString(), src.resolve("user/Bootstrap.java").toString()), bootstrapErr));
        assertTrue(bootstrapErr.toString(StandardCharsets.UTF_8).contains("package org.gexj.bootstrap is not visible"),
            bootstrapErr.toString(StandardCharsets.UTF_8));

        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=org.gexj.core,org.gexj.smp,org.gexj.bootstrap.pmix",
            "--add-opens", "java.base/jdk.internal.misc=org.agrona",
            "-p", mp + ":" + out, "--add-modules", "org.gexj.smp,org.gexj.bootstrap.pmix", "-m", "user/user.Main"));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the user module did not end");
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("value 42 over smp"), output);
        assertTrue(output.contains("sum 7"), output);
        assertTrue(output.contains("internal closed"), output);
        assertTrue(output.contains("Event.begin closed"), output);
        assertTrue(output.contains("bootstraps [pmix, singleton, tcp]"), output);
        assertTrue(output.contains("core requires [java.base, org.agrona]"), output);
    }
}
