package dev.rackwise.bench.jmh;

import dev.rackwise.tasks.TaskPlan;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;

/**
 * Outside JMH: per case, rackwise's core (median of {@code reps} calls after {@code reps}
 * warm-up calls) and one call of Kafka's HA + rack-aware assignor within a budget, each with
 * its cross-rack actives and standbys (traffic cost = 10 x their sum: one partition of
 * weight 1 per task and side). A Kafka call over budget is reported as not finished (its
 * thread is abandoned; the JVM exits at the end).
 *
 * <p>Usage: {@code StreamsVsKafka <budget seconds> <tasks>x<clients>...}
 */
public final class StreamsVsKafka {
    private StreamsVsKafka() {
    }

    public static void main(String[] args) throws Exception {
        long budget = Long.parseLong(args[0]);
        System.out.println("| tasks x clients | rackwise ms wall (median) | rackwise ms CPU (median) | rackwise cross-rack actives / standbys | rackwise traffic cost"
                + " | Kafka ms (1 call) | Kafka cross-rack actives / standbys | Kafka traffic cost |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "kafka-assign");
            t.setDaemon(true);
            return t;
        });
        for (int i = 1; i < args.length; i++) {
            String[] tc = args[i].split("x");
            StreamsCase input = new StreamsCase(Integer.parseInt(tc[0]), Integer.parseInt(tc[1]), 42L);
            int reps = input.tasks >= 10_000 ? 3 : 20;
            TaskPlan plan = null;
            for (int r = 0; r < reps; r++) {
                plan = input.rackwise();
            }
            double[] ms = new double[reps];
            double[] cpu = new double[reps];
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            for (int r = 0; r < reps; r++) {
                long c0 = mx.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                plan = input.rackwise();
                ms[r] = (System.nanoTime() - t0) / 1e6;
                cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e6;
            }
            java.util.Arrays.sort(ms);
            java.util.Arrays.sort(cpu);
            long[] ours = input.crossRack(plan);
            long t0 = System.nanoTime();
            Future<Map<ProcessId, ClientState>> kafka = pool.submit(input::kafka);
            String kafkaMs;
            String kafkaCross;
            String kafkaCost;
            try {
                Map<ProcessId, ClientState> states = kafka.get(budget, TimeUnit.SECONDS);
                kafkaMs = String.format("%.0f", (System.nanoTime() - t0) / 1e6);
                long[] theirs = input.crossRack(states);
                kafkaCross = theirs[0] + " / " + theirs[1];
                kafkaCost = String.valueOf(10 * (theirs[0] + theirs[1]));
            } catch (TimeoutException e) {
                kafka.cancel(true);
                kafkaMs = "not finished in " + budget + " s";
                kafkaCross = "-";
                kafkaCost = "-";
            }
            System.out.printf("| %d x %d | %.1f | %.1f | %d / %d | %d | %s | %s | %s |%n", input.tasks, input.clients,
                    ms[reps / 2], cpu[reps / 2], ours[0], ours[1], 10 * (ours[0] + ours[1]), kafkaMs, kafkaCross, kafkaCost);
            System.out.flush();
        }
        System.exit(0);
    }
}
