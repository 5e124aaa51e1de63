import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClasspathRoots;

/**
 * Minimal JUnit Platform runner for tools/rxe-vm/run-junit.sh: the project's test class path carries the engines but
 * not a console launcher, and the VM has no network to fetch one, so this class (compiled on the host against the
 * junit-platform-launcher jar from the local Maven repository) does the job.
 *
 * <p>Usage: {@code java -cp <test class path + launcher> RxeVmJUnit <scan root> <class pattern>...}. Patterns are globs
 * over fully qualified class names ({@code *} any run of characters, {@code ?} one); a pattern without a dot matches
 * the simple name in any package. Prints one line per test as it finishes (a TCG guest is slow: progress matters),
 * then the failures and a closing {@code junit: N passed, N failed, N skipped} line.
 * Exit status: 0 all passed, 1 a test or container failed, 3 no test ran, 4 usage (2 is left to run.sh's usage).
 */
public final class RxeVmJUnit {
    private RxeVmJUnit() {}

    static String globToRegex(String glob) {
        StringBuilder re = new StringBuilder();
        if (!glob.contains(".")) re.append("(?:.*\\.)?");
        for (char c : glob.toCharArray()) {
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> {
                    if ("\\.[]{}()+-^$|".indexOf(c) >= 0) re.append('\\');
                    re.append(c);
                }
            }
        }
        // nested classes (Outer$Inner) are run through their enclosing class
        return re.append("(?:\\$.*)?").toString();
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: RxeVmJUnit <classpath root to scan> <class name glob>...");
            System.exit(4);
        }
        Path root = Path.of(args[0]);
        if (!Files.isDirectory(root)) {
            System.err.println("RxeVmJUnit: not a directory: " + root);
            System.exit(4);
        }
        List<String> regexes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            for (String g : args[i].split(",")) {
                if (!g.isBlank()) regexes.add(globToRegex(g.strip()));
            }
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClasspathRoots(Set.of(root)))
                .filters(includeClassNamePatterns(regexes.toArray(String[]::new)))
                .build();

        Map<String, Long> started = new ConcurrentHashMap<>();
        Set<String> classes = new LinkedHashSet<>();
        TestExecutionListener progress = new TestExecutionListener() {
            private TestPlan plan;

            @Override
            public void testPlanExecutionStarted(TestPlan testPlan) {
                plan = testPlan;
                System.out.printf("junit: %d tests found%n", testPlan.countTestIdentifiers(TestIdentifier::isTest));
            }

            @Override
            public void executionStarted(TestIdentifier id) {
                started.put(id.getUniqueId(), System.nanoTime());
                id.getSource().ifPresent(s -> {
                    if (s instanceof org.junit.platform.engine.support.descriptor.ClassSource cs
                        && classes.add(cs.getClassName())) {
                        System.out.println("junit: running " + cs.getClassName());
                    }
                });
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("[SKIP] " + name(id) + " (" + reason + ")");
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                Long t0 = started.remove(id.getUniqueId());
                long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
                boolean ok = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
                if (id.isTest() || !ok) {
                    String tag = switch (result.getStatus()) {
                        case SUCCESSFUL -> "[ OK ]";
                        case ABORTED -> "[ABRT]";
                        case FAILED -> "[FAIL]";
                    };
                    System.out.printf("%s %s (%d ms)%s%n", tag, name(id), ms,
                            result.getThrowable().map(t -> ": " + t).orElse(""));
                }
            }

            private String name(TestIdentifier id) {
                StringBuilder sb = new StringBuilder(id.getDisplayName());
                if (plan != null) {
                    var p = plan.getParent(id);
                    while (p.isPresent() && p.get().getParentId().isPresent()) {
                        sb.insert(0, p.get().getDisplayName() + " > ");
                        p = plan.getParent(p.get());
                    }
                }
                return sb.toString();
            }
        };
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, progress, summary);

        TestExecutionSummary s = summary.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        if (s.getTotalFailureCount() > 0) {
            out.println();
            s.printFailuresTo(out, 40);
        }
        s.printTo(out);
        long failed = s.getTestsFailedCount() + s.getContainersFailedCount();
        long skipped = s.getTestsSkippedCount() + s.getTestsAbortedCount();
        out.printf("junit: %d passed, %d failed, %d skipped%n", s.getTestsSucceededCount(), failed, skipped);
        out.flush();
        // exit explicitly: a test may leave non-daemon threads behind
        if (failed > 0) System.exit(1);
        if (s.getTestsSucceededCount() + s.getTestsFailedCount() == 0) {
            System.out.println("junit: no test ran (pattern "
                + String.join(" ", List.of(args).subList(1, args.length)) + ")");
            System.exit(3);
        }
        System.exit(0);
    }
}
