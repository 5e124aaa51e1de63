package org.gexj.ibv;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/** The qp_num to rank table against a HashMap: every recorded QP found, every other one not. */
class IbvQpTableProperties {
    @Test
    void itAgreesWithAMap() {
        // consecutive numbers (as a device hands them out) mixed with any 24-bit ones
        qt().withExamples(500).forAll(integers().between(1, 0xFFFFFF - 600), lists().of(integers().between(0,
            0xFFFFFF)).ofSizeBetween(0, 300), integers().between(1, 300)).checkAssert((base, others, consecutive) -> {
                final Map<Integer, Integer> expected = new HashMap<>();
                for (int i = 0; i < consecutive; i++) {
                    expected.put(base + i, i);
                }
                others.forEach(q -> expected.putIfAbsent(q, expected.size()));
                final IbvQpTable table = new IbvQpTable(expected.size());
                expected.forEach(table::put);
                assertEquals(expected.size(), table.size());
                expected.forEach((qpn, rank) -> assertEquals(rank, table.rank(qpn), "QP " + qpn));
                for (int probe = base - 300; probe < base + consecutive + 300; probe++) {
                    assertEquals(expected.getOrDefault(probe, -1), table.rank(probe), "QP " + probe);
                }
            });
    }

    @Test
    void badEntriesAreNamed() {
        final IbvQpTable table = new IbvQpTable(2);
        table.put(17, 0);
        assertEquals("QP number 17 already serves rank 0",
            assertThrows(IllegalArgumentException.class, () -> table.put(17, 1)).getMessage());
        assertEquals("QP number 16777216 outside [0, 16777215] (24 bits)",
            assertThrows(IllegalArgumentException.class, () -> table.put(1 << 24, 1)).getMessage());
        assertEquals("rank -1 is negative",
            assertThrows(IllegalArgumentException.class, () -> table.put(5, -1)).getMessage());
        assertEquals(-1, table.rank(18));
    }
}
