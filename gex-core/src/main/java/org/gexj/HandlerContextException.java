package org.gexj;

/**
 * A call broke the handler-context rules: a second reply, a send from a reply handler, or a poll,
 * wait or barrier from inside a handler (or between NPAM prepare and commit).
 */
public class HandlerContextException extends IllegalStateException {
    public HandlerContextException(String message) {
        super(message);
    }
}
