/**
 * What GASNet-style test programs (testam, testqueue, testrma) share: the timer's granularity line, waiting for the JIT
 * to settle after the warm-up, and a progress line for long runs.
 */
module org.gexj.benchutil {
    requires java.management;

    exports org.gexj.benchutil;
}
