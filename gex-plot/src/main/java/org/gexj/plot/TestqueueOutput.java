package org.gexj.plot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The matrices of one testqueue run (GEX/J's or GASNet's): per test (its title, e.g.
 * {@code gex_AM_RequestLong0 (implicit handle for LC)}), the injection time in microseconds by message size (rows)
 * and queue depth (columns).
 */
public final class TestqueueOutput {
    /** One test's matrix: {@code micros[row][column]} for {@code sizes[row]} and {@code depths[column]}. */
    public record Matrix(String title, int[] depths, long[] sizes, double[][] micros) {
    }

    private final List<Matrix> matrices;

    private TestqueueOutput(List<Matrix> matrices) {
        this.matrices = matrices;
    }

    /** @return the run's matrices, or null if it has none */
    public static TestqueueOutput parse(List<String> lines) {
        final List<Matrix> matrices = new ArrayList<>();
        for (int i = 0; i + 2 < lines.size(); i++) {
            // a title, a line of dashes, blank lines, a header of depths: then rows until a line that is not one
            if (!lines.get(i + 1).matches("^-{4,}\\s*$")) {
                continue;
            }
            int h = i + 2;
            while (h < lines.size() && lines.get(h).isBlank()) {
                h++;
            }
            final int[] depths = h < lines.size() ? numbers(lines.get(h)) : null;
            if (depths == null || depths.length == 0) {
                continue;
            }
            final Map<Long, double[]> rows = new LinkedHashMap<>();
            int r = h + 1;
            for (; r < lines.size(); r++) {
                final String[] w = lines.get(r).trim().split("\\s+");
                if (w.length != depths.length + 1 || !w[0].matches("\\d+")) {
                    break;
                }
                final double[] v = new double[depths.length];
                try {
                    for (int c = 0; c < depths.length; c++) {
                        v[c] = Double.parseDouble(w[c + 1]);
                    }
                } catch (NumberFormatException e) {
                    break;
                }
                rows.put(Long.parseLong(w[0]), v);
            }
            if (!rows.isEmpty()) {
                matrices.add(new Matrix(lines.get(i).trim(), depths,
                    rows.keySet().stream().mapToLong(Long::longValue).toArray(),
                    rows.values().toArray(double[][]::new)));
                i = r - 1;
            }
        }
        return matrices.isEmpty() ? null : new TestqueueOutput(matrices);
    }

    public List<Matrix> matrices() {
        return matrices;
    }

    private static int[] numbers(String line) {
        final String t = line.trim();
        if (!t.matches("\\d+(\\s+\\d+)*")) {
            return null;
        }
        return Arrays.stream(t.split("\\s+")).mapToInt(Integer::parseInt).toArray();
    }
}
