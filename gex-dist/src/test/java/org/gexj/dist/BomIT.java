package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's project, built offline by the wrapper's Maven, imports {@code gexj-bom} and depends on {@code gex-all}
 * without a version, and compiles against the API. The reactor's poms and jars are laid into a repository of their
 * own under a version no other repository has, so they can come only from there; third-party artifacts and plugins
 * come from the user's local repository, chained behind it (Maven 3.9's {@code maven.repo.local.tail}).
 */
class BomIT {
    private static final String VERSION = "0.1.0-SNAPSHOT";
    private static final List<String> MODULES = List.of("gex-core", "gex-bootstrap-pmix", "gex-am", "gex-rma",
        "gex-coll", "conduit-smp", "gex-rdma", "conduit-ofi", "conduit-ibv", "conduit-udp", "gex-all");

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void theBomAndGexAllResolveForAUserProject(@TempDir Path tmp) throws Exception {
        final String version = "0.0.0-it-" + UUID.randomUUID().toString().substring(0, 8);
        final Path repo = tmp.resolve("repo");
        lay(repo, "gexj-parent", Jobs.ROOT.resolve("pom.xml"), null, version);
        lay(repo, "gexj-bom", Jobs.ROOT.resolve("gexj-bom/pom.xml"), null, version);
        for (String m : MODULES) {
            lay(repo, m, Jobs.ROOT.resolve(m).resolve("pom.xml"),
                Jobs.ROOT.resolve(m).resolve("target").resolve(m + "-" + VERSION + ".jar"), version);
        }
        final Path project = tmp.resolve("user");
        Files.createDirectories(project.resolve("src/main/java/com/example"));
        Files.writeString(project.resolve("pom.xml"), """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>com.example</groupId><artifactId>user</artifactId><version>1</version>
              <properties><maven.compiler.release>25</maven.compiler.release></properties>
              <dependencyManagement><dependencies>
                <dependency><groupId>org.gexj</groupId><artifactId>gexj-bom</artifactId><version>%s</version>
                  <type>pom</type><scope>import</scope></dependency>
              </dependencies></dependencyManagement>
              <dependencies>
                <dependency><groupId>org.gexj</groupId><artifactId>gex-all</artifactId></dependency>
              </dependencies>
              <build><plugins>
                <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.1</version></plugin>
                <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
              </plugins></build>
            </project>
            """.formatted(version));
        Files.writeString(project.resolve("src/main/java/com/example/Main.java"), """
            package com.example;
            import org.gexj.Client;
            import org.gexj.am.Am;
            import org.gexj.rma.Rma;
            public class Main {
                static long use(Client client) {
                    return Am.of(client).maxRequestMedium(0, 0) + (Rma.of(client).overActiveMessages() ? 1 : 0);
                }
            }
            """);
        final Path log = tmp.resolve("mvn.log");
        final Process p = new ProcessBuilder(Jobs.ROOT.resolve("mvnw").toString(), "-B", "-ntp", "-o", "-q",
            "-f", project.resolve("pom.xml").toString(), "-Dmaven.repo.local=" + repo,
            "-Dmaven.repo.local.tail=" + Path.of(System.getProperty("user.home"), ".m2", "repository"), "compile")
            .directory(Jobs.ROOT.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(150, TimeUnit.SECONDS), "the user's build did not finish");
        assertEquals(0, p.exitValue(), Files.readString(log));
        assertTrue(Files.isRegularFile(project.resolve("target/classes/com/example/Main.class")),
            Files.readString(log));
    }

    /**
     * {@code artifactId}'s pom (and jar) in Maven's layout, every GEX/J version in the pom replaced by {@code version}.
     */
    private static void lay(Path repo, String artifactId, Path pom, Path jar, String version) throws IOException {
        final Path dir = repo.resolve("org/gexj").resolve(artifactId).resolve(version);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(artifactId + "-" + version + ".pom"),
            Files.readString(pom, StandardCharsets.UTF_8).replace(VERSION, version));
        if (jar != null) {
            assertTrue(Files.isRegularFile(jar), jar + " missing: package the reactor first");
            Files.copy(jar, dir.resolve(artifactId + "-" + version + ".jar"));
        }
    }
}
