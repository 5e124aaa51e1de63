package org.gexj.benchutil;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

class TimerGranularityTest {
    private static final Pattern LINE =
        Pattern.compile("Timer granularity: <= (\\d+\\.\\d{3}) us, overhead: ~ (\\d+\\.\\d{3}) us");

    @Test
    void gasnetsLineWithMeasuredNumbers() {
        final String line = TimerGranularity.line();
        final Matcher m = LINE.matcher(line);
        assertTrue(m.matches(), line);
        final double granularity = Double.parseDouble(m.group(1));
        final double overhead = Double.parseDouble(m.group(2));
        // what a reading costs is a benchmark's figure; a test checks that both were measured (a clock read takes
        // time, and one that never advanced would print no step)
        assertTrue(granularity > 0, line);
        assertTrue(overhead > 0, line);
    }
}
