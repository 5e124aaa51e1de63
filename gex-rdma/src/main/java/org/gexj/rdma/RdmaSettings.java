package org.gexj.rdma;

/**
 * What sizes and bounds the {@link RdmaEngine}, read and range-checked by the conduit from its own settings, with the
 * names of those settings for messages.
 *
 * @param frameLength     largest AM frame in bytes (header, arguments and Medium payload)
 * @param creditBytes     receive-buffer bytes each peer may fill per channel before this rank returns credits
 * @param sendBuffers     registered send buffers of one frame each
 * @param messageCredits  messages each peer may send per channel before this rank returns credits, where each
 *                        message fills a receive buffer of its own ({@link RdmaNic#multiReceive} false)
 * @param rmaOperations   RMA operations in flight at once
 * @param timeoutNanos    how long a send may find the endpoint busy, or a peer that owes this rank credits or RMA
 *                        completions stay silent, before the peer is declared unreachable
 * @param frameSetting    the name of the frame setting ({@code GEX_OFI_FRAME})
 * @param creditSetting   the name of the credit setting
 * @param timeoutSetting  the name of the timeout setting
 * @param registrationCacheBytes registered bytes of local memory outside the segment kept for later operations when
 *                        no operation uses them ({@value #REGISTRATION_CACHE}, {@link #registrationCacheBytes})
 */
public record RdmaSettings(int frameLength, long creditBytes, int messageCredits, int sendBuffers, int rmaOperations,
                           long timeoutNanos, String frameSetting, String creditSetting, String timeoutSetting,
                           long registrationCacheBytes) {
    /** The setting that bounds the registration cache, the same for every RDMA conduit. */
    public static final String REGISTRATION_CACHE = "GEX_REG_CACHE_BYTES";
    /** 64 MiB: what verbs' default locked-memory limit on many systems allows, with room for the segment's own. */
    public static final long DEFAULT_REGISTRATION_CACHE = 64L << 20;

    /** {@value #REGISTRATION_CACHE} from {@code config}: 0 (register per operation) to 1 TiB, 64 MiB by default. */
    public static long registrationCacheBytes(org.gexj.Config config) {
        return config.getLong(REGISTRATION_CACHE, DEFAULT_REGISTRATION_CACHE, 0, 1L << 40);
    }
}
