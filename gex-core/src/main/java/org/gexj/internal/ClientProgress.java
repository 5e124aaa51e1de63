package org.gexj.internal;

/**
 * Work a layer does in a client's polls, outside handler and NPAM contexts (GASNet's progress functions): what cannot
 * run in a handler because it sends requests, such as a collective forwarding what it received. Runs on the thread
 * that holds the client's delivery, one at a time; a call must not wait, only try.
 */
@FunctionalInterface
public interface ClientProgress {
    /** @return how much work was done (0 when there was none), counted as a poll's deliveries are */
    int progress();

    /**
     * This rank's client is closing: called once, on the thread holding the client's delivery, before the final
     * barrier, whose polls still run {@link #progress}. A layer whose peers may wait for this rank in something the
     * barrier does not end (a collective it never started) tells them here, so that they fail instead of waiting.
     */
    default void closing() {
    }
}
