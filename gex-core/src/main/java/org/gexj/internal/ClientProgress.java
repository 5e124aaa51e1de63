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
}
