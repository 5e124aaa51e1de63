package org.gexj.testkit.emu;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Bytes the JVM has allocated on the calling thread ({@code com.sun.management.ThreadMXBean}), reached through a
 * method handle: the kit's module reads neither java.management nor jdk.management at compile time. The call itself
 * allocates nothing.
 */
final class ThreadAllocation {
    private static final Object BEAN;
    private static final MethodHandle COUNTER;

    static {
        try {
            final Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
            BEAN = factory.getMethod("getThreadMXBean").invoke(null);
            final Class<?> bean = Class.forName("com.sun.management.ThreadMXBean");
            COUNTER = MethodHandles.publicLookup()
                .findVirtual(bean, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
                .asType(MethodType.methodType(long.class, Object.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ThreadAllocation() {
    }

    static long bytes() {
        try {
            return (long) COUNTER.invokeExact(BEAN);
        } catch (Throwable t) {
            throw new IllegalStateException("the thread allocation counter failed", t);
        }
    }
}
