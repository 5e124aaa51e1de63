package org.gexj.am;

/**
 * Body of a Medium or Long handler. The token, payload view and args are valid only during the call; for Long,
 * the payload is already in place in the local segment at {@link Payload#segmentOffset()}.
 */
@FunctionalInterface
public interface PayloadHandler {
    void onMessage(Token token, Payload payload, Args args);
}
