package org.gexj.testqueue;

/** Completion step outside the timed region, after {@code depth} operations. */
@FunctionalInterface
interface QueueSync {
    void run(int depth);
}
