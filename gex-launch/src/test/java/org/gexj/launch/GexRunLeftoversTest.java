package org.gexj.launch;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The launcher names what the conduits' cleanup removed, in one line that tests and users can match. */
class GexRunLeftoversTest {
    @Test
    void theReportNamesEveryRemovedFile() {
        assertEquals("gexrun: removed 2 leftover file(s) of job gexj0000beef: gexj0000beef-am-1 gexj0000beef-seg-1",
            GexRun.leftoversReport("gexj0000beef", List.of("gexj0000beef-am-1", "gexj0000beef-seg-1")));
    }
}
