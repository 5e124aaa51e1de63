package org.gexj.ofi;

import org.gexj.GexException;

/**
 * A libfabric call failed: names the call, its return code and libfabric's {@code fi_strerror} text. Thrown on the
 * control path (opening, registering, closing) and for errors on the data path other than {@code -FI_EAGAIN}, which
 * is returned as back-pressure instead.
 */
public final class OfiException extends GexException {
    private final String call;
    private final int code;

    public OfiException(String call, int code, String text) {
        super(call + " failed: " + text + " (" + code + ")");
        this.call = call;
        this.code = code;
    }

    public OfiException(String message) {
        super(message);
        this.call = "";
        this.code = 0;
    }

    /** The libfabric call, e.g. {@code fi_getinfo}. */
    public String call() {
        return call;
    }

    /** The negative return code (-FI_E...), or 0 when no call failed. */
    public int code() {
        return code;
    }
}
