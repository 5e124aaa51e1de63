package org.gexj.ibv;

import org.gexj.GexException;

/**
 * A verbs call failed on the control path (opening a device, creating a queue pair, registering memory...): names the
 * call, the errno's text and the errno, e.g. {@code ibv_create_qp: Cannot allocate memory (errno 12)}. The data path
 * ({@code ibv_post_send}, {@code ibv_poll_cq}...) never throws it: it returns the C return code.
 */
public final class IbvException extends GexException {
    private final String call;
    private final int errno;

    /** A failure the message alone describes (a completion in error), with no errno. */
    public IbvException(String message) {
        super(message);
        this.call = message;
        this.errno = 0;
    }

    public IbvException(String call, int errno, String text) {
        super(call + ": " + text + " (errno " + errno + ")");
        this.call = call;
        this.errno = errno;
    }

    /** The verbs call, e.g. {@code ibv_modify_qp(RTR)}. */
    public String call() {
        return call;
    }

    /** The (positive) errno, or 0 where the library set none. */
    public int errno() {
        return errno;
    }
}
