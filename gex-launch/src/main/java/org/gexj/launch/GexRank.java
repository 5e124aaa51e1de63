package org.gexj.launch;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.jar.JarFile;

/**
 * {@code bin/gexrank PROGRAM args...}: one rank of a job whose ranks another launcher starts, such as {@code mpirun} or
 * {@code srun --mpi=pmix} (the rank then finds its job through PMIx; see {@code PmixBootstrap}). PROGRAM is what
 * gexrun takes: a main class, a jar with a Main-Class, or {@code testam}, {@code testqueue}, {@code testsmall},
 * {@code testlarge}, {@code testpwc}, {@code testfaddperf}, {@code testratomic}, {@code testvis},
 * {@code testvisperf}, {@code testteam}, {@code testsplit}, {@code testcoll}, {@code testcollperf}. The program's
 * {@code main} runs in this JVM, which {@code bin/gexrank} started with the ranks' JVM options and class path, as
 * gexrun starts its ranks.
 */
public final class GexRank {
    static final String USAGE = "usage: gexrank <main-class | program.jar | testam | testqueue | testsmall | testlarge"
        + " | testpwc | testfaddperf | testratomic | testvis | testvisperf | testteam | testsplit | testcoll"
        + " | testcollperf> [args...]\n"
        + "Runs one rank of a GEX/J job started by mpirun or srun --mpi=pmix, e.g.\n"
        + "  mpirun -np 4 bin/gexrank testam 1000 65536\n"
        + "Environment: GEX_CONDUIT, GEX_CLASSPATH (entries put before GEX/J's), GEX_JVM_OPTS (extra JVM options).";

    private GexRank() {
    }

    public static void main(String[] arguments) throws Throwable {
        final String[] argv = withoutSeparator(arguments);
        if (argv.length == 0 || argv[0].equals("-h") || argv[0].equals("--help")) {
            (argv.length == 0 ? System.err : System.out).println(USAGE);
            System.exit(argv.length == 0 ? 2 : 0);
            return;
        }
        final MethodHandle main;
        try {
            main = mainOf(argv[0]);
        } catch (IllegalArgumentException e) {
            System.err.println("gexrank: " + e.getMessage());
            System.exit(2);
            return;
        }
        main.invokeExact(Arrays.copyOfRange(argv, 1, argv.length));
    }

    /** The arguments without a leading {@code --}, which gexrun's command lines have before the program. */
    static String[] withoutSeparator(String[] argv) {
        return argv.length > 0 && argv[0].equals("--") ? Arrays.copyOfRange(argv, 1, argv.length) : argv;
    }

    /**
     * The {@code public static void main(String[])} of {@code program}.
     *
     * @throws IllegalArgumentException naming the program if it has none, is not on the class path, or is a jar without
     *                                  a Main-Class
     */
    static MethodHandle mainOf(String program) throws IOException {
        final ClassLoader loader;
        final String className;
        if (program.endsWith(".jar")) {
            final Path jar = Path.of(program);
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("program jar " + jar + " does not exist");
            }
            try (JarFile jf = new JarFile(jar.toFile())) {
                final var manifest = jf.getManifest();
                className = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
            }
            if (className == null) {
                throw new IllegalArgumentException("program jar " + jar + " has no Main-Class in its manifest");
            }
            loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getSystemClassLoader());
            Thread.currentThread().setContextClassLoader(loader);
        } else {
            className = GexRunOptions.PROGRAMS.getOrDefault(program, program);
            loader = ClassLoader.getSystemClassLoader();
        }
        final Class<?> main;
        try {
            main = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class " + className + " is not on the class path (GEX_CLASSPATH adds"
                + " entries)");
        }
        try {
            return MethodHandles.publicLookup().findStatic(main, "main", MethodType.methodType(void.class,
                String[].class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalArgumentException("class " + className + " has no public static void main(String[])");
        }
    }
}
