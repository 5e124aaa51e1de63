package org.gexj.dist;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ranks' JVM options (gex-launch's {@code rank-jvm.args}) name GEX/J's methods in their compiler directives: a
 * renamed or removed method would make a directive match nothing, silently. Each must name a method that exists, and
 * the directives must be quiet, so that no rank prints them into the benchmarks' output.
 */
class RankJvmArgsTest {
    private static final String COMMAND = "-XX:CompileCommand=";

    @Test
    void everyInlineDirectiveNamesAMethodThatExists() throws Exception {
        final List<String> options = rankJvmOptions();
        final List<String> directives = options.stream().filter(o -> o.startsWith(COMMAND))
            .map(o -> o.substring(COMMAND.length())).toList();
        assertFalse(directives.isEmpty(), "no compiler directive in rank-jvm.args: " + options);
        assertEquals("quiet", directives.get(0), "the first directive must be quiet: " + directives);
        for (String directive : directives.subList(1, directives.size())) {
            assertTrue(directive.startsWith("inline,"), "only inline directives are expected: " + directive);
            final String pattern = directive.substring("inline,".length());
            final int colons = pattern.indexOf("::");
            assertTrue(colons > 0, "Class::method expected: " + directive);
            final Class<?> type = Class.forName(pattern.substring(0, colons));
            final String method = pattern.substring(colons + 2);
            assertTrue(Arrays.stream(type.getDeclaredMethods()).map(Method::getName).anyMatch(method::equals),
                directive + ": " + type.getName() + " declares no method " + method);
        }
    }

    private static List<String> rankJvmOptions() throws IOException {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("org/gexj/launch/rank-jvm.args")) {
            assertNotNull(in, "org/gexj/launch/rank-jvm.args is not on the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        }
    }
}
