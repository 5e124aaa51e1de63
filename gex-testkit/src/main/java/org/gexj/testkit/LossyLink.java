package org.gexj.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * A lossy link for a {@link NetnsPair}: {@code iptables -A INPUT -i gexvethN -m statistic --mode random --probability P
 * -j DROP} in both namespaces, so a random share of what crosses the veth pair is dropped in each direction (what
 * the kernel delivers after IP reassembly, the bootstrap's TCP segments included; loopback traffic inside a namespace,
 * such as the launcher's with rank 0, is spared). A test class adds it in its {@code @BeforeAll}, after the pair's
 * extension set the namespaces up, and removes it in {@code @AfterAll}.
 */
public final class LossyLink {
    private final NetnsPair pair;
    private final String probability;
    private final String iptables;
    private boolean added;

    /**
     * @param probability the share dropped on each side, in (0, 1)
     * @throws AssertionError naming the fix when {@code iptables} is missing (the pair itself skips when not root)
     */
    public LossyLink(NetnsPair pair, double probability) {
        if (!(probability > 0 && probability < 1)) {
            throw new IllegalArgumentException("drop probability " + probability + " is not in (0, 1)");
        }
        this.pair = pair;
        this.probability = Double.toString(probability);
        this.iptables = NetnsPair.tool("iptables").map(Object::toString).orElseThrow(() -> new AssertionError(
            "iptables is missing: ./gexj.sh installs it (Debian package iptables, as root), or apt-get install"
                + " iptables"));
    }

    private List<String> rule(int side) {
        return List.of("INPUT", "-i", "gexveth" + side, "-m", "statistic", "--mode", "random", "--probability",
            probability, "-j", "DROP");
    }

    /** Adds the drop rule in both namespaces. */
    public void add() {
        for (int side = 0; side < 2; side++) {
            final List<String> words = new ArrayList<>(List.of(iptables, "-A"));
            words.addAll(rule(side));
            pair.run(side, words.toArray(String[]::new));
            added = true;
        }
    }

    /** Removes the rules again; idempotent. */
    public void remove() {
        if (!added) {
            return;
        }
        added = false;
        for (int side = 0; side < 2; side++) {
            final List<String> words = new ArrayList<>(List.of(iptables, "-D"));
            words.addAll(rule(side));
            try {
                pair.run(side, words.toArray(String[]::new));
            } catch (IllegalStateException e) {
                System.err.println("LossyLink: " + e.getMessage()); // the namespace goes with the pair anyway
            }
        }
    }

    /** The packets namespace {@code side}'s rule dropped so far. */
    public long dropped(int side) {
        for (String line : pair.run(side, iptables, "-L", "INPUT", "-v", "-n", "-x").split("\n")) {
            final String[] w = line.trim().split("\\s+");
            if (w.length > 2 && w[2].equals("DROP") && line.contains("statistic")) {
                return Long.parseLong(w[0]);
            }
        }
        throw new AssertionError("no drop rule in " + pair.namespace(side) + "'s INPUT chain");
    }
}
