package org.gexj.plot;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders runs as PNG charts: for testam, per section, time and bandwidth by message size (log axis), one line per
 * run; for testqueue, per run and test, a heat map of injection time by queue depth and size.
 */
final class Charts {
    static final int WIDTH = 1000;
    static final int HEIGHT = 620;

    private Charts() {
    }

    /**
     * One chart per section with sizes and per measure (µs, MB/s) over every run that has the section.
     *
     * @return the files written
     */
    static List<Path> testam(Map<String, TestamOutput> runs, Path dir) throws IOException {
        final Map<String, Map<String, List<TestamOutput.Point>>> bySeries = new LinkedHashMap<>();
        runs.forEach((label, run) -> run.series().forEach((series, points) ->
            bySeries.computeIfAbsent(series, s -> new LinkedHashMap<>()).put(label, points)));
        final List<Path> written = new ArrayList<>();
        for (Map.Entry<String, Map<String, List<TestamOutput.Point>>> e : bySeries.entrySet()) {
            if (e.getValue().values().stream().allMatch(p -> p.size() < 2)) {
                continue; // section A: one line per measure, no sizes to plot against
            }
            final String file = fileName(e.getKey());
            written.add(save(xy(e.getKey(), "round trip or per-message time (us)", e.getValue(), false),
                dir.resolve(file + "-time.png")));
            written.add(save(xy(e.getKey(), "bandwidth (MB/s)", e.getValue(), true),
                dir.resolve(file + "-bandwidth.png")));
        }
        return written;
    }

    /** One heat map per run and test. @return the files written */
    static List<Path> testqueue(Map<String, TestqueueOutput> runs, Path dir) throws IOException {
        final List<Path> written = new ArrayList<>();
        for (Map.Entry<String, TestqueueOutput> run : runs.entrySet()) {
            for (TestqueueOutput.Matrix m : run.getValue().matrices()) {
                final HeatMapChart chart = new HeatMapChartBuilder().width(WIDTH).height(HEIGHT)
                    .title(run.getKey() + ": " + m.title() + ", injection time (us)")
                    .xAxisTitle("queue depth").yAxisTitle("message size (bytes)").build();
                chart.getStyler().setShowValue(true).setLegendPosition(Styler.LegendPosition.OutsideE);
                final List<Number[]> cells = new ArrayList<>();
                for (int r = 0; r < m.sizes().length; r++) {
                    for (int c = 0; c < m.depths().length; c++) {
                        cells.add(new Number[] {c, r, m.micros()[r][c]});
                    }
                }
                final List<Integer> depths = new ArrayList<>();
                for (int d : m.depths()) {
                    depths.add(d);
                }
                final List<Long> sizes = new ArrayList<>();
                for (long s : m.sizes()) {
                    sizes.add(s);
                }
                chart.addSeries(m.title(), depths, sizes, cells);
                written.add(save(chart, dir.resolve(fileName(run.getKey() + " " + m.title()) + ".png")));
            }
        }
        return written;
    }

    private static XYChart xy(String series, String yTitle, Map<String, List<TestamOutput.Point>> byRun,
                              boolean bandwidth) {
        final XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(series)
            .xAxisTitle("message size (bytes)").yAxisTitle(yTitle).build();
        chart.getStyler().setXAxisLogarithmic(true).setLegendPosition(Styler.LegendPosition.InsideNW);
        byRun.forEach((label, points) -> {
            // a log axis has no 0: the 0-byte line is the section's first, without a bandwidth
            final List<TestamOutput.Point> sized = points.stream().filter(p -> p.size() > 0).toList();
            if (sized.isEmpty()) {
                return;
            }
            final double[] x = sized.stream().mapToDouble(TestamOutput.Point::size).toArray();
            final double[] y = sized.stream()
                .mapToDouble(p -> bandwidth ? p.megabytesPerSecond() : p.micros()).toArray();
            chart.addSeries(label, x, y);
        });
        return chart;
    }

    private static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) throws IOException {
        try (var out = java.nio.file.Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
        return file;
    }

    /** A file name from a title: letters, digits and dashes. */
    static String fileName(String title) {
        return title.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "");
    }
}
