/**
 * What GASNet-style test programs (testam, testqueue, testrma) share: the timer's granularity line, the end of the
 * warm-up (the code between rows compiled, the JIT settled, the ranks settled on their cores), and a progress line for
 * long runs.
 */
module org.gexj.benchutil {
    requires java.management;

    exports org.gexj.benchutil;
}
