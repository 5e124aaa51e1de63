package org.gexj;

/** A wait made no progress within its configured limit (for example a peer whose queue stays full). */
public class GexTimeoutException extends GexException {
    public GexTimeoutException(String message) {
        super(message);
    }
}
