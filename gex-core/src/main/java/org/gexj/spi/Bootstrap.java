package org.gexj.spi;

/**
 * Out-of-band collective exchange of small blobs between the ranks of a job (GASNet's spawner functions).
 * Slow, control path only. Calls are collective and made in the same order by every rank.
 */
public interface Bootstrap extends AutoCloseable {
    int rank();

    int size();

    /** @return every rank's blob, indexed by rank */
    byte[][] allgather(byte[] mine);

    default void barrier() {
        allgather(new byte[0]);
    }

    /**
     * Tells every rank and the launcher that the job cannot continue; their waits end in
     * {@link org.gexj.PeerFailedException} naming this rank. Never throws.
     */
    void abort(String reason);

    /**
     * This rank called {@code exit(code)}: the launcher ends the job with {@code code} and every other rank is told
     * to end too. Never throws. Without a launcher, the job is aborted.
     */
    default void exit(int code) {
        abort("rank " + rank() + " called exit(" + code + ")");
    }

    /**
     * The address of this host that the bootstrap's own connection uses, which is where a network conduit listens by
     * default: it routes to the launcher and so, in a job across hosts, to the other ranks. Loopback without a network
     * bootstrap.
     */
    default java.net.InetAddress localAddress() {
        return java.net.InetAddress.getLoopbackAddress();
    }

    /** Tells the job that this rank ends normally. */
    @Override
    void close();
}
