package dev.rackwise.bench.jmh;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * A broker's view of the assignor: a few calls in a fresh JVM, spaced as a group's target
 * computations are (members join one after another), where the code is still interpreted or
 * C1-compiled. JMH's thousands of warm-up calls hide exactly this. Prints each call's wall
 * time and the process CPU of the whole run (calling thread, JIT compiler threads and the
 * plug-in's own warm-up thread, {@code rackwise.warmup.ms}), and the wall time of the priming
 * the assignor's configure() does once per JVM ({@code CoreWarmUp.prime}; 0 for Kafka's own).
 *
 * <p>Args: members partitionsPerMember topics HOMOGENEOUS|HETEROGENEOUS FULL|INCREMENTAL
 * UNIFORM|RACKWISE calls gapMs warmupMs. bench/README.md ("Cold calls") has the use.
 */
public final class ColdDrive {
    private ColdDrive() {
    }

    public static void main(String[] a) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.setProperty(BrokerCase.WARMUP_PROPERTY, a[8]);
        long cpu0 = os.getProcessCpuTime();
        long wall0 = System.nanoTime();
        // the priming configure() does once per JVM, timed here (RACKWISE*: its configure() then
        // skips it); -1: a plug-in jar from before it (the drive compares the two)
        double primeMs = 0;
        if (a[5].startsWith("RACKWISE")) {
            try {
                primeMs = dev.rackwise.plugins.broker.CoreWarmUp.prime(true);
            } catch (NoSuchMethodError e) {
                primeMs = -1;
            }
        }
        Grid grid = new Grid(Integer.parseInt(a[0]), Integer.parseInt(a[1]), Integer.parseInt(a[2]),
            a[3].equals("HETEROGENEOUS"), a[4].equals("INCREMENTAL"));
        BrokerCase c = new BrokerCase(grid, BrokerCase.Assignor.valueOf(a[5]));
        int calls = Integer.parseInt(a[6]);
        long gapMs = Long.parseLong(a[7]);
        double[] wall = new double[calls];
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < calls; i++) {
            Thread.sleep(gapMs);
            long t0 = System.nanoTime();
            c.assign();
            wall[i] = (System.nanoTime() - t0) / 1e6;
            line.append(String.format(" %.2f", wall[i]));
        }
        double cpuMs = (os.getProcessCpuTime() - cpu0) / 1e6;
        double wallS = (System.nanoTime() - wall0) / 1e9;
        double[] sorted = wall.clone();
        Arrays.sort(sorted);
        double lastHalf = 0;
        for (int i = calls / 2; i < calls; i++) {
            lastHalf += wall[i];
        }
        System.out.printf("%s warmup_ms=%s prime_ms=%.1f calls=%d gap_ms=%d process_cpu_ms=%.0f over_s=%.1f median_ms=%.2f "
                + "max_ms=%.2f mean_second_half_ms=%.2f walls_ms=%s%n",
            String.join(" ", Arrays.copyOfRange(a, 0, 6)), a[8], primeMs, calls, gapMs, cpuMs, wallS, sorted[calls / 2],
            sorted[calls - 1], lastHalf / (calls - calls / 2), line.toString().trim());
    }
}
