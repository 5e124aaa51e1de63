import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates the public send overloads of gex-am at build time (exec-maven-plugin, generate-sources):
 * {@code AmRequestSends}, the requests {@code Am} inherits, and {@code TokenReplySends}, the replies {@code Token}
 * inherits. Each overload is one call of a hand-written package-private hook ({@code Am.request},
 * {@code Token.reply}, {@code Token.replyFromPayload}).
 *
 * <p>Fixed-arity overloads (0..4 args) keep the data path free of varargs arrays: they pass their args as
 * {@code a0..a3}, unused ones 0. The {@code int flags, int[] args, int nargs} form covers any arity. The
 * {@code try} forms are the fixed-arity ones with {@code Flags.IMMEDIATE} (a flags int would clash with an arg).
 * {@code Token} also gets a Medium reply whose source is the request's delivered {@code Payload}, so a handler can
 * reply with what it received without copying it into a buffer of its own first.
 *
 * <p>Usage: {@code java GenAmSends.java OUTPUT_DIR}; writes {@code OUTPUT_DIR/org/gexj/am/*.java}, and leaves a file
 * that would not change untouched, so that an unchanged module is not recompiled.
 */
public final class GenAmSends {
    private static final int MAX_FIXED = 4;
    private static final int WIDTH = 120;

    /** A kind of send: its category constant, the payload parameters it declares and passes, its doc. */
    private record Kind(String name, String category, List<String> params, String passed, String docSource) {
    }

    private static final Kind SHORT = new Kind("Short", "SHORT", List.of(), "null, 0, 0, 0, Lc.NOW", "");
    private static final Kind MEDIUM = new Kind("Medium", "MEDIUM",
        List.of("MemorySegment src", "long srcOffset", "long nbytes", "Lc lc"), "src, srcOffset, nbytes, 0, lc", "");
    private static final Kind LONG = new Kind("Long", "LONG",
        List.of("MemorySegment src", "long srcOffset", "long nbytes", "long dest", "Lc lc"),
        "src, srcOffset, nbytes, dest, lc", "");
    /** A Medium reply from the request's delivered payload: its own hook, no category. */
    private static final Kind MEDIUM_FROM_PAYLOAD = new Kind("Medium", null,
        List.of("Payload src", "long srcAt", "long nbytes", "Lc lc"), "src, srcAt, nbytes, lc",
        " and {@code nbytes} of {@code src} from {@code srcAt} as payload");

    private static final String HEADER =
        "// Generated at build time by gex-am/src/build/GenAmSends.java: edit that, not this.\n"
            + "package org.gexj.am;\n\n";

    private GenAmSends() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: java GenAmSends.java OUTPUT_DIR");
        }
        final Path dir = Path.of(args[0], "org", "gexj", "am");
        Files.createDirectories(dir);
        write(dir.resolve("AmRequestSends.java"), amRequestSends());
        write(dir.resolve("TokenReplySends.java"), tokenReplySends());
    }

    private static void write(Path file, String text) throws IOException {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (Files.exists(file) && java.util.Arrays.equals(Files.readAllBytes(file), bytes)) {
            return;
        }
        Files.write(file, bytes);
    }

    private static String amRequestSends() {
        final StringBuilder s = new StringBuilder(HEADER);
        s.append("""
            import org.gexj.Flags;
            import org.gexj.Lc;

            import java.lang.foreign.MemorySegment;

            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_LONG;
            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_MEDIUM;
            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_SHORT;

            /**
             * The public Short, Medium and Long requests of {@link Am} and {@link TeamAm}, generated: each is one
             * call of {@link #request}. The fixed-arity forms pass their args as {@code a0..a3} so that no varargs
             * array is allocated per message.
             */
            abstract sealed class AmRequestSends permits Am, TeamAm {
                private static final int SHORT = CATEGORY_SHORT;
                private static final int MEDIUM = CATEGORY_MEDIUM;
                private static final int LONG = CATEGORY_LONG;

                /**
                 * Sends a request of {@code category} with the first {@code nargs} (at most 4) of {@code a0..a3}
                 * as args.
                 *
                 * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if {@code flags} has IMMEDIATE and resources
                 *         were short
                 */
                abstract int request(int peer, int category, int handler, MemorySegment src, long srcOffset,
                                     long nbytes, long dest, Lc lc, int flags, int nargs, int a0, int a1, int a2,
                                     int a3);

                /** As the fixed-arity {@code request}, with {@code nargs} args taken from {@code args}. */
                abstract int request(int peer, int category, int handler, MemorySegment src, long srcOffset,
                                     long nbytes, long dest, Lc lc, int flags, int[] args, int nargs);
            """);
        for (Kind k : List.of(SHORT, MEDIUM, LONG)) {
            family(s, k, true);
        }
        return s.append("}\n").toString();
    }

    private static String tokenReplySends() {
        final StringBuilder s = new StringBuilder(HEADER);
        s.append("""
            import org.gexj.Flags;
            import org.gexj.Lc;

            import java.lang.foreign.MemorySegment;

            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_LONG;
            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_MEDIUM;
            import static org.gexj.am.wire.AmFrameFlyweight.CATEGORY_SHORT;

            /**
             * The public Short, Medium and Long replies of {@link Token}, generated: each is one call of {@link #reply}
             * or {@link #replyFromPayload}. The fixed-arity forms pass their args as {@code a0..a3} so that no varargs
             * array is allocated per message.
             */
            abstract sealed class TokenReplySends permits Token {
                private static final int SHORT = CATEGORY_SHORT;
                private static final int MEDIUM = CATEGORY_MEDIUM;
                private static final int LONG = CATEGORY_LONG;

                /**
                 * Replies with {@code category} and the first {@code nargs} (at most 4) of {@code a0..a3} as args.
                 *
                 * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if {@code flags} has IMMEDIATE and resources
                 *         were short
                 */
                abstract int reply(int category, int handler, MemorySegment src, long srcOffset, long nbytes,
                                   long dest, Lc lc, int flags, int nargs, int a0, int a1, int a2, int a3);

                /** As the fixed-arity {@code reply}, with {@code nargs} args taken from {@code args}. */
                abstract int reply(int category, int handler, MemorySegment src, long srcOffset, long nbytes,
                                   long dest, Lc lc, int flags, int[] args, int nargs);

                /**
                 * Replies with a Medium whose payload is {@code nbytes} of the delivered {@code src} from
                 * {@code srcAt}, and the first {@code nargs} (at most 4) of {@code a0..a3} as args.
                 *
                 * @return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if {@code flags} has IMMEDIATE and resources
                 *         were short
                 */
                abstract int replyFromPayload(int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags,
                                              int nargs, int a0, int a1, int a2, int a3);

                /** As the fixed-arity {@code replyFromPayload}, with {@code nargs} args taken from {@code args}. */
                abstract int replyFromPayload(int handler, Payload src, long srcAt, long nbytes, Lc lc, int flags,
                                              int[] args, int nargs);
            """);
        for (Kind k : List.of(SHORT, MEDIUM, MEDIUM_FROM_PAYLOAD, LONG)) {
            family(s, k, false);
        }
        return s.append("}\n").toString();
    }

    /** Appends every overload of {@code kind}: fixed arity 0..4, waiting then IMMEDIATE, then the array form. */
    private static void family(StringBuilder s, Kind kind, boolean request) {
        final String direction = request ? "request" : "reply";
        final String name = direction + kind.name();
        final String what = "a " + kind.name() + " " + direction;
        for (boolean immediate : new boolean[] {false, true}) {
            for (int n = 0; n <= MAX_FIXED; n++) {
                final List<String> params = params(kind, request);
                final List<String> args = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    params.add("int a" + i);
                }
                for (int i = 0; i < MAX_FIXED; i++) {
                    args.add(i < n ? "a" + i : "0");
                }
                final String arity = n + (n == 1 ? " arg" : " args") + kind.docSource();
                s.append('\n');
                if (immediate) {
                    doc(s, "Sends " + what + " with " + arity
                            + " only if resources are free now ({@link Flags#IMMEDIATE}).",
                        "@return {@link Am#OK}, or {@link Am#BACK_PRESSURED} with nothing sent");
                } else {
                    doc(s, "Sends " + what + " with " + arity + "; waits for resources.", "@return {@link Am#OK}");
                }
                final String method = immediate ? "try" + Character.toUpperCase(name.charAt(0)) + name.substring(1)
                    : name;
                body(s, method, params, hook(kind, request), kind, request, (immediate ? "Flags.IMMEDIATE" : "0")
                    + ", " + n + ", " + String.join(", ", args));
            }
        }
        final List<String> params = params(kind, request);
        params.addAll(List.of("int flags", "int[] args", "int nargs"));
        s.append('\n');
        doc(s, "Sends " + what + " with {@code nargs} args taken from {@code args} (reused by the caller)"
                + kind.docSource() + ".",
            "@param flags 0 or {@link Flags#IMMEDIATE}",
            "@return {@link Am#OK}, or {@link Am#BACK_PRESSURED} if IMMEDIATE and resources were short (nothing sent)");
        body(s, name, params, hook(kind, request), kind, request, "flags, args, nargs");
    }

    private static List<String> params(Kind kind, boolean request) {
        final List<String> params = new ArrayList<>();
        if (request) {
            params.add("int peer");
        }
        params.add("int handler");
        params.addAll(kind.params());
        return params;
    }

    private static String hook(Kind kind, boolean request) {
        return request ? "request" : kind.category() == null ? "replyFromPayload" : "reply";
    }

    /** The method: its signature wrapped at the open parenthesis, its body one call of the hook. */
    private static void body(StringBuilder s, String method, List<String> params, String hook, Kind kind,
                             boolean request, String sendArgs) {
        final String open = "    public int " + method + "(";
        s.append(wrap(open, params, ") {", " ".repeat(open.length())));
        final List<String> call = new ArrayList<>();
        if (request) {
            call.add("peer");
        }
        if (kind.category() != null) {
            call.add(kind.category());
        }
        call.add("handler");
        call.add(kind.passed());
        call.add(sendArgs);
        s.append(wrap("        return " + hook + "(", split(call), ");", "            "));
        s.append("    }\n");
    }

    /** Splits comma-joined items so that a call can wrap between any two arguments. */
    private static List<String> split(List<String> items) {
        final List<String> out = new ArrayList<>();
        for (String item : items) {
            out.addAll(List.of(item.split(", ")));
        }
        return out;
    }

    /** {@code head item, item, ...tail}, wrapped before an item that would pass the width, continued at indent. */
    private static String wrap(String head, List<String> items, String tail, String indent) {
        final StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(head);
        for (int i = 0; i < items.size(); i++) {
            final String item = items.get(i) + (i < items.size() - 1 ? "," : tail);
            final boolean first = line.length() == head.length() && out.isEmpty();
            if (!first && line.length() + 1 + item.length() > WIDTH) {
                out.append(line).append('\n');
                line = new StringBuilder(indent).append(item);
            } else {
                line.append(first ? "" : " ").append(item);
            }
        }
        if (items.isEmpty()) {
            line.append(tail);
        }
        return out.append(line).append('\n').toString();
    }

    /** A javadoc comment: the summary wrapped at the width, then a blank line and the block tags. */
    private static void doc(StringBuilder s, String summary, String... tags) {
        s.append("    /**\n");
        s.append(wrapWords("     * ", summary));
        s.append("     *\n");
        for (String tag : tags) {
            s.append(wrapWords("     * ", tag));
        }
        s.append("     */\n");
    }

    /** Words wrapped at the width, each line starting with {@code prefix}. */
    private static String wrapWords(String prefix, String text) {
        final StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(prefix);
        for (String word : text.split(" ")) {
            if (line.length() > prefix.length() && line.length() + 1 + word.length() > WIDTH) {
                out.append(line).append('\n');
                line = new StringBuilder(prefix);
            }
            line.append(line.length() > prefix.length() ? " " : "").append(word);
        }
        return out.append(line).append('\n').toString();
    }
}
