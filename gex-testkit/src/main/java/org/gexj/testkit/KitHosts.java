package org.gexj.testkit;

import java.util.List;

/**
 * Where a kit's jobs of processes run when not all on this host's loopback: the "hosts" a test class sets up (network
 * namespaces, {@link NetnsPair}; with an sshd each, {@link NetnsSshHosts}) and what the launchers need to reach them.
 * A kit subclass names its hosts in {@link ConduitKit#hosts()}, and the kit's launcher hooks take them from there.
 */
public interface KitHosts {
    /** Words in front of the launcher's own command: {@code ip netns exec NS}, where it binds its rendezvous. */
    List<String> launcherPrefix();

    /** gexrun's options that put the ranks on these hosts ({@code --bind}, {@code --wrap}, {@code --hosts}). */
    List<String> gexrunOptions();

    /**
     * The hosts' addresses, in the order the launcher places ranks round robin: rank {@code r} runs where
     * {@code addresses().get(r % size)} is a local address. Every rank of a kit job checks it, so a launcher option
     * that stopped spreading the ranks fails the kit.
     */
    List<String> addresses();

    /**
     * How many ranks a kit test written for any job size runs with here; {@code ranks}, as written, unless the hosts
     * want more (two per host).
     */
    default int ranks(int ranks) {
        return ranks;
    }
}
