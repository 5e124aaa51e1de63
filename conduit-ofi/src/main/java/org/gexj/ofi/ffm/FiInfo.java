package org.gexj.ofi.ffm;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A typed view of one {@code struct fi_info} and the attribute structs hung on it: what the conduit reads of an entry
 * {@code fi_getinfo} returned, and what it sets in its hints. Control path only (a view is made per entry).
 */
public final class FiInfo {
    private final MemorySegment info;

    public FiInfo(MemorySegment info) {
        this.info = info.reinterpret(Fabric.FI_INFO.byteSize());
    }

    /** The {@code fi_info} itself, for the calls that take it. */
    public MemorySegment segment() {
        return info;
    }

    /** The next entry of the list, or null at its end. */
    public FiInfo next() {
        final MemorySegment next = info.get(ADDRESS, Fabric.INFO_NEXT);
        return next.equals(MemorySegment.NULL) ? null : new FiInfo(next);
    }

    /** {@code fabric_attr}, for {@link Fabric#openFabric}. */
    public MemorySegment fabricAttr() {
        return Fabric.attr(info, Fabric.INFO_FABRIC_ATTR, Fabric.FI_FABRIC_ATTR);
    }

    private MemorySegment domainAttr() {
        return Fabric.attr(info, Fabric.INFO_DOMAIN_ATTR, Fabric.FI_DOMAIN_ATTR);
    }

    /** {@code fabric_attr->prov_name}, e.g. {@code tcp;ofi_rxm}. */
    public String provider() {
        return Fabric.string(fabricAttr().get(ADDRESS, Fabric.FABRIC_PROV_NAME));
    }

    /** {@code domain_attr->name}. */
    public String domainName() {
        return Fabric.string(domainAttr().get(ADDRESS, Fabric.DOMAIN_NAME));
    }

    /** {@code domain_attr->mr_mode}. */
    public int mrMode() {
        return domainAttr().get(JAVA_INT, Fabric.DOMAIN_MR_MODE);
    }

    /** {@code domain_attr->cq_data_size}: bytes of remote CQ data. */
    public long cqDataSize() {
        return domainAttr().get(JAVA_LONG, Fabric.DOMAIN_CQ_DATA_SIZE);
    }

    /** {@code ep_attr->max_msg_size}, as the {@code size_t} bits (-1 is 2^64-1). */
    public long maxMessageSize() {
        return Fabric.attr(info, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).get(JAVA_LONG, Fabric.EP_MAX_MSG_SIZE);
    }

    /** {@code tx_attr->inject_size}. */
    public long injectSize() {
        return Fabric.attr(info, Fabric.INFO_TX_ATTR, Fabric.FI_TX_ATTR).get(JAVA_LONG, Fabric.TX_INJECT_SIZE);
    }

    /** {@code caps}. */
    public long caps() {
        return info.get(JAVA_LONG, Fabric.INFO_CAPS);
    }

    // hints

    public FiInfo caps(long caps) {
        info.set(JAVA_LONG, Fabric.INFO_CAPS, caps);
        return this;
    }

    public FiInfo mode(long mode) {
        info.set(JAVA_LONG, Fabric.INFO_MODE, mode);
        return this;
    }

    /** {@code ep_attr->type}. */
    public FiInfo endpointType(int type) {
        Fabric.attr(info, Fabric.INFO_EP_ATTR, Fabric.FI_EP_ATTR).set(JAVA_INT, Fabric.EP_TYPE, type);
        return this;
    }

    /** {@code domain_attr->mr_mode}. */
    public FiInfo mrMode(int mode) {
        domainAttr().set(JAVA_INT, Fabric.DOMAIN_MR_MODE, mode);
        return this;
    }

    /** {@code domain_attr->threading}. */
    public FiInfo threading(int threading) {
        domainAttr().set(JAVA_INT, Fabric.DOMAIN_THREADING, threading);
        return this;
    }

    /** {@code domain_attr->av_type}. */
    public FiInfo avType(int type) {
        domainAttr().set(JAVA_INT, Fabric.DOMAIN_AV_TYPE, type);
        return this;
    }

    /** {@code fabric_attr->prov_name}: a string from {@code malloc}, which {@code fi_freeinfo} frees. */
    public FiInfo providerName(MemorySegment mallocedName) {
        fabricAttr().set(ADDRESS, Fabric.FABRIC_PROV_NAME, mallocedName);
        return this;
    }
}
