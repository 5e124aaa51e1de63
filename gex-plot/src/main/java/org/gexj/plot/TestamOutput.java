package org.gexj.plot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The result lines of one testam run (GEX/J's or GASNet's: the same format), by series: a section and what it
 * measures, e.g. {@code B AMMedium ping-pong roundtrip ReqRep}, with the size, microseconds and MB/s of each line.
 * Lines of other ranks than the first sender's ({@code "B: 2: ..."} with more than 2 ranks) are series of their own.
 */
public final class TestamOutput {
    private static final Pattern LINE = Pattern.compile(
        "^([A-K]): +(?:(\\d+): +)?(?:(\\d+) +)?(AM\\w+ +.+?) *: +[\\d.]+ sec +([\\d.]+) us(?: +([\\d.]+) MB/s)?\\s*$");

    /** One result line. */
    public record Point(long size, double micros, double megabytesPerSecond) {
    }

    private final Map<String, List<Point>> series;

    private TestamOutput(Map<String, List<Point>> series) {
        this.series = series;
    }

    /** @return the run's series, or null if no line is a testam result */
    public static TestamOutput parse(List<String> lines) {
        final Map<String, List<Point>> series = new LinkedHashMap<>();
        for (String line : lines) {
            final Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            final String key = m.group(1) + (m.group(2) == null ? "" : " rank " + m.group(2)) + " "
                + m.group(4).trim().replaceAll(" +", " ");
            series.computeIfAbsent(key, k -> new ArrayList<>()).add(new Point(
                m.group(3) == null ? 0 : Long.parseLong(m.group(3)), Double.parseDouble(m.group(5)),
                m.group(6) == null ? 0 : Double.parseDouble(m.group(6))));
        }
        return series.isEmpty() ? null : new TestamOutput(series);
    }

    /** Series name (section letter first) to its points, in the order of the output. */
    public Map<String, List<Point>> series() {
        return series;
    }
}
