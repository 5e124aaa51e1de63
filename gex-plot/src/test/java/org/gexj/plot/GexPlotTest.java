package org.gexj.plot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gexplot over real runs (fixtures: GEX/J and GASNet-EX, udp; testam 10000 65536 of one round of 2026-11-26, testqueue
 * -l -i 1000 256 32768 of 2026-11-24): exact parsing, charts of the right size that are not blank, clear errors for bad
 * input, and the README's chart made from the fixture by this code.
 */
class GexPlotTest {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    @Test
    void testamLinesAreParsedExactly() throws Exception {
        final TestamOutput j = TestamOutput.parse(lines("gexj-udp-testam.txt"));
        assertEquals(new TestamOutput.Point(4096, 7.289, 1071.888),
            j.series().get("G AMLong ping-pong roundtrip ReqRep").stream().filter(p -> p.size() == 4096).findFirst()
                .orElseThrow());
        assertEquals(List.of(new TestamOutput.Point(0, 6.691, 0)),
            j.series().get("A AMShort ping-pong roundtrip ReqRep"));
        final TestamOutput g = TestamOutput.parse(lines("gasnet-udp-testam.txt"));
        final List<TestamOutput.Point> gl = g.series().get("G AMLong ping-pong roundtrip ReqRep");
        assertEquals(new TestamOutput.Point(65000, 21.813, 5683.764), gl.get(gl.size() - 1));
        assertNull(TestamOutput.parse(lines("gexj-udp-testqueue.txt")));
    }

    @Test
    void testqueueMatricesAreParsedExactly() throws Exception {
        final TestqueueOutput q = TestqueueOutput.parse(lines("gexj-udp-testqueue.txt"));
        assertEquals(1, q.matrices().size());
        final TestqueueOutput.Matrix m = q.matrices().get(0);
        assertEquals("gex_AM_RequestLong0 (implicit handle for LC)", m.title());
        assertArrayEquals(new int[] {1, 2, 4, 8, 16, 32, 64, 128, 256}, m.depths());
        assertEquals(16, m.sizes().length);
        assertEquals(32768, m.sizes()[15]);
        assertArrayEquals(new double[] {24.289, 23.358, 20.823, 22.639, 24.568, 24.639, 26.040, 27.964, 29.658},
            m.micros()[15]);
        assertNull(TestqueueOutput.parse(lines("gexj-udp-testam.txt")));
    }

    @Test
    void runsAreDrawnTogetherWithALegendAndTheChartsAreNotBlank(@TempDir Path dir) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = GexPlot.run(new String[] {"-o", dir.toString(),
            "--label", "GASNet-EX=" + fixture("gasnet-udp-testam.txt"),
            "--label", "GEX/J=" + fixture("gexj-udp-testam.txt"),
            fixture("gasnet-udp-testam.txt").toString(), fixture("gexj-udp-testam.txt").toString(),
            fixture("gexj-udp-testqueue.txt").toString()}, new PrintStream(out), System.err);
        assertEquals(0, status);
        // sections B-K, time and bandwidth each, and one heat map
        final List<String> written = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(2 * 10 + 1, written.size(), written.toString());
        for (String name : List.of("G-AMLong-ping-pong-roundtrip-ReqRep-time.png",
            "D-AMMedium-flood-one-way-Req-bandwidth.png",
            "gexj-udp-testqueue-txt-gex-AM-RequestLong0-implicit-handle-for-LC.png")) {
            assertDrawn(dir.resolve(name));
        }
    }

    @Test
    void badInputIsNamedAndExitsTwo(@TempDir Path dir) throws Exception {
        final Path text = Files.writeString(dir.resolve("notes.txt"), "hello\nworld\n");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, GexPlot.run(new String[] {"-o", dir.toString(), text.toString()}, System.out,
            new PrintStream(err)));
        assertEquals("gexplot: " + text + " is neither testam nor testqueue output (no result lines found)",
            err.toString(StandardCharsets.UTF_8).strip());
        err.reset();
        assertEquals(2, GexPlot.run(new String[] {dir.resolve("missing.txt").toString()}, System.out,
            new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8)
            .startsWith("gexplot: cannot read " + dir.resolve("missing.txt")), err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(2, GexPlot.run(new String[] {"--label", "x"}, System.out, new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("gexplot: --label x is not NAME=FILE"));
    }

    /** README's chart: GEX/J against GASNet-EX, AM Long round trip over udp, drawn from the fixtures by gexplot. */
    @Test
    void theReadmeChartIsThisRunDrawnByThisCode(@TempDir Path dir) throws Exception {
        assertEquals(0, GexPlot.run(new String[] {"-o", dir.toString(),
            "--label", "GASNet-EX 2025.8.0 udp=" + fixture("gasnet-udp-testam.txt"),
            "--label", "GEX/J udp=" + fixture("gexj-udp-testam.txt"),
            fixture("gasnet-udp-testam.txt").toString(), fixture("gexj-udp-testam.txt").toString()},
            new PrintStream(new ByteArrayOutputStream()), System.err));
        final Path drawn = dir.resolve("G-AMLong-ping-pong-roundtrip-ReqRep-time.png");
        assertDrawn(drawn);
        final Path readme = Path.of(System.getProperty("user.dir")).getParent()
            .resolve("docs/gexplot-udp-amlong-roundtrip.png");
        if (Boolean.getBoolean("gexplot.updateReadmeChart")) {
            Files.copy(drawn, readme, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        assertTrue(Files.isRegularFile(readme),
            readme + " missing: mvn test -pl gex-plot -Dgexplot.updateReadmeChart=true");
        final BufferedImage committed = ImageIO.read(readme.toFile());
        assertEquals(Charts.WIDTH, committed.getWidth());
        assertEquals(Charts.HEIGHT, committed.getHeight());
    }

    private static void assertDrawn(Path png) throws IOException {
        assertTrue(Files.isRegularFile(png), png + " not written");
        final BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(Charts.WIDTH, image.getWidth());
        assertEquals(Charts.HEIGHT, image.getHeight());
        // axes, grid and text are greys: the data is what is drawn in colour (lines and markers, heat map cells)
        long coloured = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                final int rgb = image.getRGB(x, y);
                final int r = rgb >> 16 & 0xff;
                final int g = rgb >> 8 & 0xff;
                final int b = rgb & 0xff;
                if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 80) {
                    coloured++;
                }
            }
        }
        assertTrue(coloured > 2000, png + ": only " + coloured + " pixels of data drawn");
    }

    private static Path fixture(String name) throws URISyntaxException {
        return Path.of(GexPlotTest.class.getResource(name).toURI());
    }

    private static List<String> lines(String name) throws Exception {
        return Files.readAllLines(fixture(name), StandardCharsets.UTF_8);
    }
}
