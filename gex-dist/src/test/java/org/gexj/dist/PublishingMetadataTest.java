package org.gexj.dist;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Maven Central requires of every published artifact's POM: name, description, url, a license with its url,
 * developers and SCM; the modules inherit them from the parent, the BOM (which has no parent, so that importing it
 * brings only GEX/J's versions) states them itself. Published modules also ship sources and javadoc jars.
 */
class PublishingMetadataTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final List<String> PUBLISHED = List.of("gex-core", "gex-launch",
        "gex-bootstrap-pmix", "gex-benchutil", "gex-am", "gex-rma", "gex-coll", "conduit-smp", "gex-rdma",
        "conduit-ofi", "conduit-ibv", "conduit-udp", "testam", "testqueue", "testrma", "gex-plot", "gex-all");

    @Test
    void theParentAndTheBomCarryWhatCentralRequires() throws Exception {
        for (Path pom : List.of(ROOT.resolve("pom.xml"), ROOT.resolve("gexj-bom/pom.xml"))) {
            final Element project = parse(pom);
            for (String element : List.of("name", "description", "url")) {
                assertFalse(text(project, element).isBlank(), pom + ": no <" + element + ">");
            }
            final Element license = child(child(project, "licenses", pom), "license", pom);
            assertEquals("Apache-2.0", text(license, "name"), pom.toString());
            assertTrue(text(license, "url").startsWith("https://"), pom + ": license without url");
            final Element developer = child(child(project, "developers", pom), "developer", pom);
            assertFalse(text(developer, "name").isBlank(), pom + ": developer without name");
            final Element scm = child(project, "scm", pom);
            assertTrue(text(scm, "connection").startsWith("scm:git:"), pom + ": scm connection");
            assertFalse(text(scm, "url").isBlank(), pom + ": scm url");
        }
        assertTrue(Files.isRegularFile(ROOT.resolve("LICENSE")), "LICENSE file missing");
    }

    @Test
    void everyPublishedModuleIsNamedAndDescribed() throws Exception {
        for (String module : PUBLISHED) {
            final Path pom = ROOT.resolve(module).resolve("pom.xml");
            final Element project = parse(pom);
            assertFalse(text(project, "name").isBlank(), pom + ": no <name>");
            assertTrue(text(project, "version").isEmpty(), pom + ": the version comes from the parent");
        }
    }

    @Test
    void theBomListsEveryPublishedModuleAtTheProjectVersion() throws Exception {
        final Element bom = parse(ROOT.resolve("gexj-bom/pom.xml"));
        assertEquals(text(parse(ROOT.resolve("pom.xml")), "version"), text(bom, "version"));
        final var ids = bom.getElementsByTagName("artifactId");
        final List<String> managed = new java.util.ArrayList<>();
        for (int i = 0; i < ids.getLength(); i++) {
            if (ids.item(i).getParentNode().getNodeName().equals("dependency")) {
                managed.add(ids.item(i).getTextContent().trim());
            }
        }
        assertEquals(PUBLISHED.stream().sorted().toList(), managed.stream().sorted().toList());
    }

    @Test
    void publishedJarsComeWithSourcesAndJavadoc() {
        for (String module : PUBLISHED) {
            if (module.equals("gex-all")) {
                continue; // no code of its own
            }
            for (String classifier : List.of("sources", "javadoc")) {
                final Path jar = ROOT.resolve(module).resolve("target")
                    .resolve(module + "-0.1.0-SNAPSHOT-" + classifier + ".jar");
                assertTrue(Files.isRegularFile(jar), jar + " missing");
            }
        }
    }

    private static Element parse(Path pom) throws Exception {
        final Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return d.getDocumentElement();
    }

    /** The text of {@code parent}'s direct child {@code name}, or "" if it has none. */
    private static String text(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return "";
    }

    private static Element child(Element parent, String name, Path pom) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        throw new AssertionError(pom + ": no <" + name + "> in <" + parent.getTagName() + ">");
    }
}
