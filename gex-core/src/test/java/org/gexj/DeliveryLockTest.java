package org.gexj;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeliveryLockTest {
    private static boolean tryLockElsewhere(DeliveryLock lock) {
        return CompletableFuture.supplyAsync(() -> {
            final boolean got = lock.tryLock();
            if (got) {
                lock.unlock();
            }
            return got;
        }).join();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void itsOwnerTakesItAgainAndOthersOnlyOnceEveryHoldIsGivenBack() {
        final DeliveryLock lock = new DeliveryLock();
        assertTrue(lock.tryLock());
        assertTrue(lock.tryLock(), "a handler's own poll nests");
        assertFalse(tryLockElsewhere(lock));
        lock.unlock();
        assertFalse(tryLockElsewhere(lock), "one hold is still taken");
        lock.unlock();
        assertTrue(tryLockElsewhere(lock));
        assertTrue(lock.tryLock(), "free again after another thread held and gave it back");
        lock.unlock();
    }

    /** Threads that take it in turn never hold it together, and every increment under it survives. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void atMostOneThreadHoldsIt() throws InterruptedException {
        final DeliveryLock lock = new DeliveryLock();
        final AtomicInteger inside = new AtomicInteger();
        final int[] plain = new int[1];
        final int threads = 4;
        final int perThread = 200_000;
        final CountDownLatch done = new CountDownLatch(threads);
        final AtomicInteger overlaps = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            Thread.ofPlatform().start(() -> {
                int taken = 0;
                while (taken < perThread) {
                    if (lock.tryLock()) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        plain[0]++;
                        inside.decrementAndGet();
                        lock.unlock();
                        taken++;
                    } else {
                        Thread.onSpinWait();
                    }
                }
                done.countDown();
            });
        }
        assertTrue(done.await(50, TimeUnit.SECONDS));
        assertEquals(0, overlaps.get());
        assertEquals(threads * perThread, plain[0]);
    }
}
