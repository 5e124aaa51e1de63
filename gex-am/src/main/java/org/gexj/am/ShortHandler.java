package org.gexj.am;

/** Body of a Short handler. The token and args are valid only during the call. */
@FunctionalInterface
public interface ShortHandler {
    void onMessage(Token token, Args args);
}
