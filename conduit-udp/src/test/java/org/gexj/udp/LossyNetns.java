package org.gexj.udp;

import org.gexj.testkit.LossyLink;
import org.gexj.testkit.NetnsPair;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lossy link the netns kit classes over udp share: {@link #dropTenPercentBothWays} from the class's
 * {@code @BeforeAll} adds a {@link LossyLink} dropping 10 % of what arrives in each namespace, and
 * {@link #reportTheLosses} from its {@code @AfterAll} prints the class's time and the packets each side dropped (no
 * speed is asserted), fails if either side dropped none, and removes the rule. Not thread-safe: JUnit calls both from
 * one thread.
 */
final class LossyNetns {
    private final String testClass;
    private final NetnsPair netns;
    private LossyLink loss;
    private long start;

    LossyNetns(Class<?> testClass, NetnsPair netns) {
        this.testClass = testClass.getSimpleName();
        this.netns = netns;
    }

    void dropTenPercentBothWays() {
        loss = new LossyLink(netns, 0.1);
        loss.add();
        start = System.nanoTime();
    }

    void reportTheLosses() {
        if (loss == null) {
            return; // skipped (not root) or no iptables: nothing was added
        }
        try {
            final long[] dropped = {loss.dropped(0), loss.dropped(1)};
            System.out.printf("%s: %.1f s with 10 %% dropped both ways: %d packets dropped arriving at rank 0's"
                + " namespace, %d at rank 1's%n", testClass, (System.nanoTime() - start) / 1e9, dropped[0],
                dropped[1]);
            assertTrue(dropped[0] > 0 && dropped[1] > 0, "both directions lost packets: " + dropped[0] + ", "
                + dropped[1]);
        } finally {
            loss.remove();
        }
    }
}
