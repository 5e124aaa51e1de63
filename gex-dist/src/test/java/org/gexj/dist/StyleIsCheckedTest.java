package org.gexj.dist;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build holds every module to the style rules (docs/DESIGN.md, "Engineering rules"): the parent pom runs
 * Checkstyle in every module's build, not only in its plugin management, and fails on a violation; the rules are the
 * four the code keeps. The line and tab rules are also checked here on every tracked Java file, including the tools'
 * sources that no Maven module compiles.
 */
class StyleIsCheckedTest {
    private static final int MAX_COLUMNS = 120;

    @Test
    void everyModuleRunsCheckstyleAndFailsOnAViolation() throws Exception {
        final String pom = Files.readString(RepositoryStandsAloneTest.ROOT.resolve("pom.xml"));
        final int managed = pom.indexOf("</pluginManagement>");
        assertTrue(managed > 0, "the parent pom has no pluginManagement");
        final String management = pom.substring(0, managed);
        final String plugins = pom.substring(managed);
        assertTrue(plugins.contains("<artifactId>maven-checkstyle-plugin</artifactId>"),
            "the parent pom's build plugins do not run maven-checkstyle-plugin");
        for (String setting : List.of("<failOnViolation>true</failOnViolation>",
                "<includeTestSourceDirectory>true</includeTestSourceDirectory>", "<goal>check</goal>",
                "config/checkstyle/checkstyle.xml")) {
            assertTrue(management.contains(setting), "maven-checkstyle-plugin lacks " + setting);
        }
        final Path config = RepositoryStandsAloneTest.ROOT.resolve("config/checkstyle/checkstyle.xml");
        final String rules = Files.readString(config);
        for (String rule : List.of("FileTabCharacter", "LineLength", "UnusedImports", "CustomImportOrder")) {
            assertTrue(rules.contains("<module name=\"" + rule + "\""), "the Checkstyle rules lack " + rule);
        }
        assertTrue(rules.contains("<property name=\"max\" value=\"" + MAX_COLUMNS + "\"/>"),
            "LineLength is not " + MAX_COLUMNS + " columns");
    }

    @Test
    void noJavaFileHasALineOverTheLimitOrATab() throws Exception {
        final List<String> bad = new ArrayList<>();
        for (Path f : RepositoryStandsAloneTest.files()) {
            if (!f.toString().endsWith(".java") || !Files.isRegularFile(f)) {
                continue;
            }
            final List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                final String line = lines.get(i);
                if (line.length() > MAX_COLUMNS || line.indexOf('\t') >= 0) {
                    bad.add(RepositoryStandsAloneTest.ROOT.relativize(f) + ":" + (i + 1));
                }
            }
        }
        assertTrue(bad.isEmpty(), "lines over " + MAX_COLUMNS + " columns or with a tab: " + bad);
    }
}
