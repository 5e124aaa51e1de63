package org.gexj.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every kit test method ends within its kit's {@link ConduitKit#methodTimeout()}, which follows the job budget a
 * subclass sets ({@link ConduitKit#timeout()}); a class-level {@code @Timeout} would be one fixed number for every
 * subclass, shorter than the budget of a slow provider's jobs. As JUnit's own same-thread timeout, it interrupts the
 * test thread when the time is up and then fails the test; the jobs' own timeouts and Surefire's fork timeout end what
 * ignores the interrupt.
 */
final class KitTimeout implements InvocationInterceptor {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "kit-timeout");
        t.setDaemon(true);
        return t;
    });

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> invocationContext,
                                    ExtensionContext extensionContext) throws Throwable {
        final Duration limit = ((ConduitKit) extensionContext.getRequiredTestInstance()).methodTimeout();
        final Thread test = Thread.currentThread();
        final AtomicBoolean expired = new AtomicBoolean();
        final ScheduledFuture<?> timer = TIMER.schedule(() -> {
            expired.set(true);
            test.interrupt();
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
        Throwable failure = null;
        try {
            invocation.proceed();
        } catch (Throwable t) {
            failure = t;
        } finally {
            timer.cancel(false);
        }
        if (expired.get()) {
            Thread.interrupted(); // not for the next test
            final AssertionError e = new AssertionError(invocationContext.getExecutable().getName()
                + " timed out after " + limit.toSeconds() + " s (the kit's methodTimeout())");
            if (failure != null) {
                e.addSuppressed(failure);
            }
            throw e;
        }
        if (failure != null) {
            throw failure;
        }
    }
}
