package org.gexj.launch;

import org.gexj.Conduits;
import org.gexj.spi.ConduitProvider;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The conduits a job's ranks will find, as the launcher sees them before it starts any: so that a misspelt or
 * unusable conduit is one message from gexrun, not a stack trace from every rank.
 */
final class ConduitCatalog {
    private final List<ConduitProvider> providers;

    ConduitCatalog(List<ConduitProvider> providers) {
        this.providers = List.copyOf(providers);
    }

    /** The launcher's class path plus {@code extraClassPath} ({@code GEX_CLASSPATH}, may be null): the ranks' one. */
    static ConduitCatalog of(String extraClassPath) {
        final List<URL> urls = new ArrayList<>();
        if (extraClassPath != null && !extraClassPath.isBlank()) {
            for (String entry : extraClassPath.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    try {
                        urls.add(Path.of(entry).toUri().toURL());
                    } catch (MalformedURLException e) {
                        throw new IllegalArgumentException("GEX_CLASSPATH entry " + entry + " is not a path", e);
                    }
                }
            }
        }
        final ClassLoader parent = ConduitCatalog.class.getClassLoader();
        final ClassLoader loader = urls.isEmpty() ? parent : new URLClassLoader(urls.toArray(URL[]::new), parent);
        return new ConduitCatalog(Conduits.all(loader));
    }

    /**
     * Why a job cannot run on conduit {@code name}, or empty if it can. With {@code checkAvailability} false (ranks
     * started elsewhere through {@code --wrap}, where what this host lacks may be present) only an unknown name is one.
     */
    Optional<String> problem(String name, boolean checkAvailability) {
        for (ConduitProvider p : providers) {
            if (p.name().equals(name)) {
                if (!checkAvailability || p.isAvailable()) {
                    return Optional.empty();
                }
                return Optional.of("gexrun: conduit " + name + " is unavailable here: " + reason(p) + "; available: "
                    + available());
            }
        }
        return Optional.of("gexrun: conduit " + name + " is not known; available: " + available()
            + " (gexrun --list-conduits says more)");
    }

    /** {@code gexrun --list-conduits}: a line per conduit, the default marked. */
    String listing(String defaultName) {
        final StringBuilder b = new StringBuilder("conduits (default: ").append(defaultName).append("):");
        for (ConduitProvider p : providers) {
            b.append("\n  ").append(String.format("%-6s", p.name())).append(' ')
                .append(p.isAvailable() ? "available" : "unavailable: " + reason(p));
        }
        return b.toString();
    }

    private String available() {
        final List<String> names = providers.stream().filter(ConduitProvider::isAvailable).map(ConduitProvider::name)
            .toList();
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    private static String reason(ConduitProvider p) {
        final Throwable cause = p.unavailabilityCause();
        return cause == null || cause.getMessage() == null ? "no reason given" : cause.getMessage();
    }
}
