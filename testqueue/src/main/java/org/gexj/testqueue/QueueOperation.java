package org.gexj.testqueue;

/** One timed operation of a queue test: {@code i} is its index within the depth, for explicit handles. */
@FunctionalInterface
interface QueueOperation {
    void run(int i, int payload);
}
