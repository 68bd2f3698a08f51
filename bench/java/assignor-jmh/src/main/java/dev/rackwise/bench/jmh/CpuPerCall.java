package dev.rackwise.bench.jmh;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * What {@link BrokerCpuDrive} and {@link ClassicCpuDrive} measure of one cell: {@code iterations}
 * warm-up calls, then as many measured ones, each timed by the calling thread's CPU time and the
 * bytes it allocates; prints one line: the cell, the median and 10th percentile of CPU ms, the
 * median MB allocated, the answer's hash and the count. With {@code -Dbench.sweep.mb=N}, N MB
 * are swept through the caches before each measured call ({@link #SWEEP_MB}).
 */
final class CpuPerCall {
    private CpuPerCall() {
    }

    /**
     * MB of memory written and read before each measured call, outside its time (system property
     * {@code bench.sweep.mb}, default 0: none). A coordinator serves many groups' heartbeats and
     * commits between two assignments of one group, so the group's objects are seldom still in
     * the CPU's caches when assign() reads them; a sweep larger than the caches puts every
     * assignor in that state, instead of reading what its own previous call left cached.
     */
    static final int SWEEP_MB = Integer.getInteger("bench.sweep.mb", 0);
    private static final long[] SWEEP = new long[SWEEP_MB * 131_072];
    private static long swept;

    private static void sweep() {
        long sum = swept;
        for (int i = 0; i < SWEEP.length; i += 8) { // one long per 64-byte line
            SWEEP[i] += i;
            sum += SWEEP[i];
        }
        swept = sum;
    }

    static void print(String cell, int answerHash, Runnable call, int iterations) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();
        for (int i = 0; i < iterations; i++) {
            call.run(); // warm-up, as many as measured
        }
        long[] cpu = new long[iterations];
        long[] bytes = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            sweep(); // untimed: what a busy broker's other work does to the caches between two calls
            long b0 = mx.getThreadAllocatedBytes(me);
            long c0 = mx.getCurrentThreadCpuTime();
            call.run();
            cpu[i] = mx.getCurrentThreadCpuTime() - c0;
            bytes[i] = mx.getThreadAllocatedBytes(me) - b0;
        }
        Arrays.sort(cpu);
        Arrays.sort(bytes);
        System.out.printf("%s cpu_median_ms=%.3f cpu_p10_ms=%.3f alloc_mb=%.3f hash=%08x over=%d%n", cell,
            cpu[iterations / 2] / 1e6, cpu[iterations / 10] / 1e6, bytes[iterations / 2] / 1e6, answerHash, iterations);
    }
}
