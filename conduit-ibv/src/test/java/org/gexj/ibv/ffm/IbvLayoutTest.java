package org.gexj.ibv.ffm;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every struct layout of {@link VerbsLayouts} and every {@code IBV_*} constant of {@link Verbs} against the installed
 * {@code <infiniband/verbs.h>}: a C program generated from the layouts themselves (so a member added to a layout is
 * checked without touching this test) prints {@code sizeof} of each struct and {@code offsetof}/{@code sizeof} of each
 * named member, nested ones by their C path ({@code ah_attr.grh.sgid_index}), and the value of each constant; gcc
 * compiles it into {@code target/} at test time. Without gcc or the header (Debian packages {@code gcc} and
 * {@code libibverbs-dev}, which {@code ./gexj.sh} installs) the test fails and says which is missing.
 */
class IbvLayoutTest {
    private static final Path DIR = Path.of("target", "ibv-layout");
    private static Map<String, Long> measured;

    @BeforeAll
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    static void compileAndRunTheHeaderProbe() throws Exception {
        Files.createDirectories(DIR);
        final Path source = DIR.resolve("ibv_layout.c");
        final Path binary = DIR.resolve("ibv_layout");
        Files.writeString(source, program(), StandardCharsets.UTF_8);
        final Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-std=gnu11", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("gcc cannot be run (" + e.getMessage() + "): install the Debian package gcc (./gexj.sh does)");
            return;
        }
        final String gccOutput = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(gcc.waitFor(90, TimeUnit.SECONDS), "gcc did not finish in 90 s");
        if (gcc.exitValue() != 0) {
            if (gccOutput.contains("infiniband/verbs.h")) {
                fail("<infiniband/verbs.h> is missing: install the Debian package libibverbs-dev (./gexj.sh does)."
                    + " gcc said:\n" + gccOutput);
            }
            fail("gcc failed on " + source + ":\n" + gccOutput);
        }
        final Process run = new ProcessBuilder(binary.toAbsolutePath().toString()).redirectErrorStream(true).start();
        final String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "the probe did not finish in 30 s");
        assertEquals(0, run.exitValue(), out);
        measured = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            final int space = line.lastIndexOf(' ');
            measured.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
    }

    /** The C program: one printf per struct size, member offset, member size and constant. */
    private static String program() throws IllegalAccessException {
        final StringBuilder c = new StringBuilder("""
            #include <stddef.h>
            #include <stdio.h>
            #include <infiniband/verbs.h>
            int main(void) {
            """);
        for (Map.Entry<String, String> e : expressions().entrySet()) {
            c.append("    printf(\"%s %lld\\n\", \"").append(e.getKey()).append("\", (long long) (")
                .append(e.getValue()).append("));\n");
        }
        return c.append("    return 0;\n}\n").toString();
    }

    /** Key (as the program prints it) → C expression, for everything checked. */
    private static Map<String, String> expressions() throws IllegalAccessException {
        final Map<String, String> e = new LinkedHashMap<>();
        for (GroupLayout layout : VerbsLayouts.ALL) {
            final String type = layout.name().orElseThrow();
            e.put("sizeof(" + type + ")", "sizeof(" + type + ")");
            for (String path : memberPaths(layout, "")) {
                e.put("offsetof(" + type + ", " + path + ")", "offsetof(" + type + ", " + path + ")");
                e.put("sizeof(" + type + "." + path + ")", "sizeof(((" + type + " *) 0)->" + path + ")");
            }
        }
        for (Map.Entry<String, Long> k : constants().entrySet()) {
            e.put(k.getKey(), k.getKey());
        }
        return e;
    }

    // C paths of the named members, nested ones included; an unnamed group is an anonymous union: no path element
    private static List<String> memberPaths(GroupLayout group, String prefix) {
        final List<String> paths = new ArrayList<>();
        for (MemoryLayout m : group.memberLayouts()) {
            if (m instanceof PaddingLayout) {
                continue;
            }
            if (m.name().isEmpty()) {
                paths.addAll(memberPaths((GroupLayout) m, prefix));
                continue;
            }
            final String path = prefix + m.name().get();
            paths.add(path);
            if (m instanceof GroupLayout inner) {
                paths.addAll(memberPaths(inner, path + "."));
            }
        }
        return paths;
    }

    private static Map<String, Long> constants() throws IllegalAccessException {
        final Map<String, Long> constants = new LinkedHashMap<>();
        for (Field f : Verbs.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getName().startsWith("IBV_")) {
                constants.put(f.getName(), ((Number) f.get(null)).longValue());
            }
        }
        return constants;
    }

    @Test
    void everyStructHasTheHeadersSize() {
        final List<String> wrong = new ArrayList<>();
        for (GroupLayout layout : VerbsLayouts.ALL) {
            final String key = "sizeof(" + layout.name().orElseThrow() + ")";
            if (measured.get(key) != layout.byteSize()) {
                wrong.add(key + ": header " + measured.get(key) + ", ours " + layout.byteSize());
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyMemberHasTheHeadersOffsetAndSize() {
        final List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (GroupLayout layout : VerbsLayouts.ALL) {
            final String type = layout.name().orElseThrow();
            for (String path : memberPaths(layout, "")) {
                final String[] names = path.split("\\.");
                final long offset = VerbsLayouts.offset(layout, names);
                final long size = layout.select(pathElements(layout, names)).byteSize();
                final String at = "offsetof(" + type + ", " + path + ")";
                final String sized = "sizeof(" + type + "." + path + ")";
                if (measured.get(at) != offset) {
                    wrong.add(at + ": header " + measured.get(at) + ", ours " + offset);
                }
                if (measured.get(sized) != size) {
                    wrong.add(sized + ": header " + measured.get(sized) + ", ours " + size);
                }
                checked++;
            }
        }
        assertEquals(List.of(), wrong);
        assertTrue(checked > 200, "only " + checked + " members checked");
    }

    @Test
    void theDataPathPointersAreWhereTheInlineFunctionsReadThem() {
        // verbs.h: ibv_post_send is qp->context->ops.post_send(...), and so on
        assertEquals(measured.get("offsetof(struct ibv_context, ops.post_send)"), VerbsOps.POST_SEND);
        assertEquals(measured.get("offsetof(struct ibv_context, ops.post_recv)"), VerbsOps.POST_RECV);
        assertEquals(measured.get("offsetof(struct ibv_context, ops.post_srq_recv)"), VerbsOps.POST_SRQ_RECV);
        assertEquals(measured.get("offsetof(struct ibv_context, ops.poll_cq)"), VerbsOps.POLL_CQ);
    }

    @Test
    void theUnreliableDatagramOffsetsAreTheHeaders() {
        // the members a UD channel writes and reads, by the constants the bindings use (not by layout paths)
        final Map<String, Long> used = new LinkedHashMap<>();
        used.put("offsetof(struct ibv_send_wr, wr.ud.ah)", SendWr.UD_AH);
        used.put("offsetof(struct ibv_send_wr, wr.ud.remote_qpn)", SendWr.UD_REMOTE_QPN);
        used.put("offsetof(struct ibv_send_wr, wr.ud.remote_qkey)", SendWr.UD_REMOTE_QKEY);
        used.put("offsetof(struct ibv_wc, src_qp)", WorkCompletions.SRC_QP);
        used.put("offsetof(struct ibv_wc, byte_len)", WorkCompletions.BYTE_LEN);
        used.put("offsetof(struct ibv_wc, wc_flags)", WorkCompletions.WC_FLAGS);
        used.put("offsetof(struct ibv_qp_attr, qkey)", VerbsQp.ATTR_QKEY);
        used.put("offsetof(struct ibv_ah_attr, grh.dgid)", VerbsAh.DGID);
        used.put("offsetof(struct ibv_ah_attr, grh.sgid_index)", VerbsAh.SGID_INDEX);
        used.put("offsetof(struct ibv_ah_attr, grh.hop_limit)", VerbsAh.HOP_LIMIT);
        used.put("offsetof(struct ibv_ah_attr, dlid)", VerbsAh.DLID);
        used.put("offsetof(struct ibv_ah_attr, is_global)", VerbsAh.IS_GLOBAL);
        used.put("offsetof(struct ibv_ah_attr, port_num)", VerbsAh.PORT_NUM);
        used.put("sizeof(struct ibv_grh)", (long) Verbs.UD_GRH_BYTES);
        used.put("sizeof(struct ibv_ah_attr)", VerbsLayouts.IBV_AH_ATTR.byteSize());
        used.put("sizeof(struct ibv_ah)", VerbsLayouts.IBV_AH.byteSize());
        final List<String> wrong = new ArrayList<>();
        used.forEach((key, ours) -> {
            if (!ours.equals(measured.get(key))) {
                wrong.add(key + ": header " + measured.get(key) + ", ours " + ours);
            }
        });
        assertEquals(List.of(), wrong);
        assertEquals(40, Verbs.UD_GRH_BYTES, "the GRH before every UD payload");
    }

    @Test
    void everyConstantHasTheHeadersValue() throws IllegalAccessException {
        final List<String> wrong = new ArrayList<>();
        final Map<String, Long> constants = constants();
        constants.forEach((name, value) -> {
            if (!value.equals(measured.get(name))) {
                wrong.add(name + ": header " + measured.get(name) + ", ours " + value);
            }
        });
        assertEquals(List.of(), wrong);
        assertTrue(constants.size() > 40, constants.keySet().toString());
    }

    private static MemoryLayout.PathElement[] pathElements(GroupLayout layout, String[] names) {
        final List<MemoryLayout.PathElement> elements = new ArrayList<>();
        MemoryLayout at = layout;
        for (String name : names) {
            at = step((GroupLayout) at, name, elements);
        }
        return elements.toArray(MemoryLayout.PathElement[]::new);
    }

    private static MemoryLayout step(GroupLayout group, String name, List<MemoryLayout.PathElement> out) {
        final List<MemoryLayout> members = group.memberLayouts();
        for (int i = 0; i < members.size(); i++) {
            final MemoryLayout m = members.get(i);
            if (m.name().filter(name::equals).isPresent()) {
                out.add(MemoryLayout.PathElement.groupElement(name));
                return m;
            }
            if (m.name().isEmpty() && m instanceof GroupLayout g && memberPaths(g, "").contains(name)) {
                out.add(MemoryLayout.PathElement.groupElement((long) i));
                return step(g, name, out);
            }
        }
        throw new IllegalArgumentException(name + " not in " + group);
    }
}
