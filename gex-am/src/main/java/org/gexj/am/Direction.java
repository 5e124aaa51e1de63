package org.gexj.am;

/** Whether a handler may be the target of requests, replies or both. */
public enum Direction {
    REQUEST, REPLY, REQREP;

    boolean allowsRequest() {
        return this != REPLY;
    }

    boolean allowsReply() {
        return this != REQUEST;
    }
}
