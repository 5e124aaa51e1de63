package org.gexj.rdma;

/**
 * Registered memory: the {@code descriptor} local operations on it pass (0 where the NIC needs none), the {@code key}
 * peers' RMA names it with, and how to release it.
 *
 * @param descriptor the local descriptor (libfabric's {@code fi_mr_desc}, verbs' {@code lkey})
 * @param key        the remote key (libfabric's {@code fi_mr_key}, verbs' {@code rkey})
 * @param release    releases the registration (control path); a no-op for one the NIC releases itself
 */
public record RdmaRegion(long descriptor, long key, Runnable release) {
}
