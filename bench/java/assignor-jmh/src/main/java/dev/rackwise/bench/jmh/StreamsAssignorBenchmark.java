package dev.rackwise.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Kafka Streams task assignment: rackwise's task core ({@code dev.rackwise.tasks.TaskCore})
 * against Kafka's own {@code HighAvailabilityTaskAssignor} + {@code RackAwareTaskAssignor}
 * ({@code min_traffic}) on the same {@link StreamsCase}: 3 racks, RF 2, 1 standby, fresh
 * state. Kafka's side takes minutes from 400 × 40 on (cycle cancelling), so the README runs
 * it here only at 100 × 10 and times the larger cases once, with a budget, in
 * {@link StreamsVsKafka}.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx6g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
public class StreamsAssignorBenchmark {
    /** tasks x clients. */
    @Param({"100x10", "400x40", "1000x100", "10000x500"})
    public String size;

    @Param({"RACKWISE", "KAFKA"})
    public String assignor;

    private StreamsCase input;

    @Setup
    public void setUp() {
        String[] tc = size.split("x");
        input = new StreamsCase(Integer.parseInt(tc[0]), Integer.parseInt(tc[1]), 42L);
    }

    @Benchmark
    public Object assign() {
        return "KAFKA".equals(assignor) ? input.kafka() : input.rackwise();
    }
}
