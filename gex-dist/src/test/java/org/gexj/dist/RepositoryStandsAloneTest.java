package org.gexj.dist;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The repository must stand on its own: no file may point into the directory beside it that only its developers had
 * (the parent directory's {@code shared}), since users who clone the repository do not have it. Checks every file git
 * tracks or would track (untracked but not ignored), or, outside a git checkout, every file but build output.
 */
class RepositoryStandsAloneTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    // built from parts so that this file does not name what it looks for
    private static final String OUTSIDE = String.join("/", "..", "shared");

    @Test
    void noFileRefersToTheSharedDirectoryBesideTheRepository() throws Exception {
        final List<Path> files = files();
        assertTrue(files.size() > 50, "found only " + files.size() + " files under " + ROOT);
        final byte[] needle = OUTSIDE.getBytes(StandardCharsets.US_ASCII);
        final List<String> hits = new ArrayList<>();
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                continue; // tracked but deleted in the work tree
            }
            final byte[] content = Files.readAllBytes(f);
            int line = 1;
            for (int i = 0; i < content.length; i++) {
                if (content[i] == '\n') {
                    line++;
                } else if (startsWith(content, i, needle)) {
                    hits.add(ROOT.relativize(f) + ":" + line);
                }
            }
        }
        assertTrue(hits.isEmpty(), "files that refer to " + OUTSIDE + ", which users of the repository do not have: "
            + String.join(", ", hits));
    }

    /** A JVM crash log or a native backtrace (the JDK's signal handler writes {@code *.btr}) is never source. */
    @Test
    void noCrashDumpIsInTheRepository() throws Exception {
        final List<String> dumps = files().stream().map(f -> ROOT.relativize(f).toString())
            .filter(f -> f.endsWith(".btr") || f.matches("(.*/)?hs_err_pid\\d+\\.log")
                || f.matches("(.*/)?core(\\.\\d+)?"))
            .toList();
        assertTrue(dumps.isEmpty(), "crash dumps tracked or not ignored: " + dumps);
    }

    private static boolean startsWith(byte[] content, int at, byte[] needle) {
        if (at + needle.length > content.length) {
            return false;
        }
        for (int j = 0; j < needle.length; j++) {
            if (content[at + j] != needle[j]) {
                return false;
            }
        }
        return true;
    }

    /** Every file git tracks or would track under the repository (outside git: every file but build output). */
    static List<Path> files() throws IOException, InterruptedException {
        if (Files.exists(ROOT.resolve(".git"))) { // a directory in a clone, a file in a worktree
            final Process git = new ProcessBuilder("git", "-C", ROOT.toString(), "ls-files", "-z", "--cached",
                "--others", "--exclude-standard").redirectError(ProcessBuilder.Redirect.INHERIT).start();
            final String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(git.waitFor(60, TimeUnit.SECONDS), "git ls-files did not end within 60 s");
            assertTrue(git.exitValue() == 0, "git ls-files ended with exit status " + git.exitValue());
            return Stream.of(out.split("\0")).filter(s -> !s.isEmpty()).map(ROOT::resolve).distinct().toList();
        }
        try (Stream<Path> walk = Files.walk(ROOT)) {
            return walk.filter(Files::isRegularFile)
                .filter(p -> {
                    final Path rel = ROOT.relativize(p);
                    for (Path part : rel) {
                        if (part.toString().equals("target") || part.toString().equals(".git")) {
                            return false;
                        }
                    }
                    return true;
                })
                .toList();
        }
    }
}
