package org.gexj.plot;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/gexplot [-o DIR] [--label NAME=FILE]... FILE...}: PNG charts of testam and testqueue outputs, GEX/J's and
 * GASNet's alike, several runs on one chart (testam) with a legend of their names.
 */
public final class GexPlot {
    static final String USAGE = "usage: gexplot [-o DIR] [--label NAME=FILE]... FILE...\n"
        + "  FILE            the output of a testam or testqueue run (GEX/J's or GASNet's)\n"
        + "  -o DIR          where the PNG files go (default: the current directory)\n"
        + "  --label N=FILE  the legend name of FILE (default: its file name)\n"
        + "testam runs share a chart per section and measure (time, bandwidth by size); each testqueue run gets a\n"
        + "heat map per test (injection time by queue depth and size).";

    private GexPlot() {
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args, System.out, System.err));
    }

    /** @return the exit status: 0, or 2 for bad usage or input, with a message on {@code err} */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Path dir = Path.of(".");
        final Map<String, String> labels = new LinkedHashMap<>();
        final List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            final String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                return 0;
            } else if (a.equals("-o") && i + 1 < args.length) {
                dir = Path.of(args[++i]);
            } else if (a.equals("--label") && i + 1 < args.length) {
                final String kv = args[++i];
                final int eq = kv.indexOf('=');
                if (eq <= 0 || eq == kv.length() - 1) {
                    err.println("gexplot: --label " + kv + " is not NAME=FILE\n" + USAGE);
                    return 2;
                }
                labels.put(kv.substring(eq + 1), kv.substring(0, eq));
            } else if (a.startsWith("-")) {
                err.println("gexplot: unknown option " + a + "\n" + USAGE);
                return 2;
            } else {
                files.add(Path.of(a));
            }
        }
        if (files.isEmpty()) {
            err.println("gexplot: no input file\n" + USAGE);
            return 2;
        }
        final Map<String, TestamOutput> testam = new LinkedHashMap<>();
        final Map<String, TestqueueOutput> testqueue = new LinkedHashMap<>();
        for (Path f : files) {
            final List<String> lines;
            try {
                lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("gexplot: cannot read " + f + ": " + e.getMessage());
                return 2;
            }
            final String label = labels.getOrDefault(f.toString(), f.getFileName().toString());
            final TestamOutput am = TestamOutput.parse(lines);
            final TestqueueOutput queue = am == null ? TestqueueOutput.parse(lines) : null;
            if (am != null) {
                testam.put(label, am);
            } else if (queue != null) {
                testqueue.put(label, queue);
            } else {
                err.println("gexplot: " + f + " is neither testam nor testqueue output (no result lines found)");
                return 2;
            }
        }
        try {
            Files.createDirectories(dir);
            final List<Path> written = new ArrayList<>(Charts.testam(testam, dir));
            written.addAll(Charts.testqueue(testqueue, dir));
            written.forEach(out::println);
        } catch (IOException e) {
            err.println("gexplot: cannot write into " + dir + ": " + e.getMessage());
            return 2;
        }
        return 0;
    }
}
