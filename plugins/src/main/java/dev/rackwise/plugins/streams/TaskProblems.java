package dev.rackwise.plugins.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.rackwise.core.TopicPartition;
import dev.rackwise.plugins.advice.AdviceView;
import dev.rackwise.plugins.advice.GroupAdvice;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskConfig;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskInputException;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;

/**
 * Kafka Streams' {@link ApplicationState} (KIP-924) as the task core's {@link TaskProblem}, in one
 * pass and without any I/O of its own (reading lags and {@code rackIds()} makes Kafka Streams
 * itself list the changelogs' end offsets and describe its internal topics, as its own assignors do).
 *
 * <ul>
 *   <li>clients: {@code kafkaStreamsStates(true)}: process id (the UUID's string), threads,
 *       {@code rackId()}, client tags, previous active and standby tasks, and every stateful
 *       task's lag from {@code statefulTasksToLagSums()};</li>
 *   <li>tasks: {@code allTasks()}; a task is stateful when it has changelog partitions (what
 *       Kafka's HA assignor counts: a store without logging has nothing to restore or stand by);
 *       a partition that is both source and changelog (a source table reused as its changelog)
 *       is in both lists;</li>
 *   <li>replica racks: each partition's {@code rackIds()}, else the last racks seen for it
 *       ({@link PartitionRacks}), else unknown (the core then turns rack awareness off, as Kafka does);</li>
 *   <li>configs: {@code assignmentConfigs()}; strategy {@code none} becomes {@code min_traffic}
 *       (naming rackwise asks for rack awareness); a cost the application leaves unset comes from
 *       the agent's {@code planner.rules} advice for the application ({@code traffic_cost},
 *       {@code non_overlap_cost}), else Kafka's default;</li>
 *   <li>standbys: without {@code rack.aware.assignment.tags}, with standbys and with every client's
 *       rack known, the rack is the one tag ({@link #RACK_TAG}), so standbys avoid their active's rack
 *       where another has room (KIP-708's placement); named tags are used as given;</li>
 *   <li>weights: with measured advice, each partition weighs its relative bytes/s
 *       ({@link AdviceView#weight}) in hundredths ({@link #WEIGHT_SCALE}, at least 1; an
 *       unmeasured partition 100) and the non-overlap cost is scaled by the same factor, so the
 *       costs keep KIP-925's proportions; without advice no weight is set (every partition 1).</li>
 * </ul>
 *
 * <p>Example: one process in az1 with one thread and task 0_0 reading {@code in-0} (replicas in
 * az1, az2) gives a problem with client {@code 0000...-0001} (az1), task 0_0 stateless, racks
 * {@code in-0 -> [az1, az2]}, strategy min_traffic.
 */
public final class TaskProblems {
    /**
     * The client tag standbys are spread over when the application names no
     * {@code rack.aware.assignment.tags} (KIP-708): each client's rack, so a standby goes to another
     * rack than its active's wherever one is free. Only when every client has a rack.
     */
    public static final String RACK_TAG = "rackwise.rack";

    /**
     * Weights are relative bytes/s in hundredths: the core's weights are whole numbers, and small
     * ones leave its tie-break levels room within its 2^60 cost budget (docs/streams-assignor.md § 6).
     */
    public static final long WEIGHT_SCALE = 100;

    private TaskProblems() {
    }

    /** Where the racks of the problem's partitions came from (logged once per assign). */
    public record RackSources(int fromKafka, int lastKnown, int unknown) {
        @Override
        public String toString() {
            return "racks of " + fromKafka + " partitions from Kafka Streams, " + lastKnown + " last known, "
                + unknown + " unknown";
        }
    }

    /**
     * A translated application.
     *
     * @param problem     the core's input
     * @param processes   Kafka's process ids by the problem's client ids
     * @param racks       the replica racks used, by partition (for the plan report)
     * @param rackSources where they came from
     * @param strategy    the strategy asked for (before none became min_traffic)
     * @param weighted    whether advice weights were applied
     * @param rackTags    whether standbys are spread over racks as a client tag ({@link #RACK_TAG})
     */
    public record Translated(TaskProblem problem, SortedMap<String, ProcessId> processes,
                             Map<TopicPartition, List<String>> racks, RackSources rackSources, String strategy,
                             boolean weighted, boolean rackTags) {
    }

    public static Translated of(ApplicationState state, String applicationId, AdviceView advice, PartitionRacks known) {
        TaskProblem.Builder b = TaskProblem.builder();
        Map<TopicPartition, List<String>> racks = new TreeMap<>();
        int fromKafka = 0;
        int lastKnown = 0;
        int unknown = 0;
        Set<TopicPartition> partitions = new TreeSet<>();
        for (TaskInfo info : state.allTasks().values()) {  // the problem sorts; Kafka cannot order named ids
            TaskId id = taskId(info.id());
            List<TopicPartition> sources = new ArrayList<>();
            List<TopicPartition> changelogs = new ArrayList<>();
            for (TaskTopicPartition ttp : info.topicPartitions()) {
                TopicPartition tp = new TopicPartition(ttp.topicPartition().topic(), ttp.topicPartition().partition());
                if (ttp.isSource()) {
                    sources.add(tp);
                }
                if (ttp.isChangelog()) {
                    changelogs.add(tp);
                }
                if (!partitions.add(tp) || racks.containsKey(tp)) {
                    continue;
                }
                List<String> given = racksOf(ttp);
                if (given != null) {
                    known.remember(tp, given);
                    racks.put(tp, given);
                    fromKafka++;
                } else if (known.last(tp) != null) {
                    racks.put(tp, known.last(tp));
                    lastKnown++;
                } else {
                    unknown++;
                }
            }
            b.task(new TaskSpec(id, !changelogs.isEmpty(), sources, changelogs));
        }
        racks.forEach(b::replicaRacks);

        AssignmentConfigs c = state.assignmentConfigs();
        java.util.Collection<KafkaStreamsState> states = state.kafkaStreamsStates(true).values();
        boolean rackTags = c.rackAwareAssignmentTags().isEmpty() && c.numStandbyReplicas() > 0
            && !states.isEmpty() && states.stream().allMatch(s -> s.rackId().isPresent());
        SortedMap<String, ProcessId> processes = new TreeMap<>();
        for (KafkaStreamsState s : states) {
            String pid = s.processId().id().toString();
            processes.put(pid, s.processId());
            SortedMap<TaskId, Long> lags = new TreeMap<>();
            for (Map.Entry<org.apache.kafka.streams.processor.TaskId, Long> e : s.statefulTasksToLagSums().entrySet()) {
                lags.put(taskId(e.getKey()), e.getValue());
            }
            SortedMap<String, String> tags = new TreeMap<>(s.clientTags());
            if (rackTags) {
                tags.put(RACK_TAG, s.rackId().get());
            }
            b.client(new ClientSpec(pid, s.numProcessingThreads(), s.rackId().orElse(null), tags,
                ids(s.previousActiveTasks()), ids(s.previousStandbyTasks()), lags));
        }

        String asked = c.rackAwareAssignmentStrategy();
        Optional<GroupAdvice> rule = advice.rule(applicationId);
        Integer trafficCost = c.rackAwareTrafficCost().isPresent() ? Integer.valueOf(c.rackAwareTrafficCost().getAsInt())
            : rule.map(r -> cost(r, "traffic_cost")).orElse(null);
        Integer nonOverlapCost = c.rackAwareNonOverlapCost().isPresent()
            ? Integer.valueOf(c.rackAwareNonOverlapCost().getAsInt())
            : rule.map(r -> cost(r, "non_overlap_cost")).orElse(null);
        boolean weighted = advice.measured() && partitions.stream()
            .anyMatch(tp -> advice.bytesPerSecond(tp.topic(), tp.partition()) != null);
        if (weighted) {
            for (TopicPartition tp : partitions) {
                b.weight(tp, Math.max(1L, Math.round(advice.weight(tp.topic(), tp.partition()) * WEIGHT_SCALE)));
            }
            int beta = nonOverlapCost != null ? nonOverlapCost : TaskConfig.DEFAULT_NON_OVERLAP_COST;
            nonOverlapCost = Math.toIntExact(beta * WEIGHT_SCALE);
            if (trafficCost == null) {
                trafficCost = TaskConfig.DEFAULT_TRAFFIC_COST;
            }
        }
        b.config(new TaskConfig(c.acceptableRecoveryLag(), c.maxWarmupReplicas(), c.numStandbyReplicas(),
            c.probingRebalanceIntervalMs(), strategy(asked), trafficCost, nonOverlapCost,
            rackTags ? List.of(RACK_TAG) : List.copyOf(c.rackAwareAssignmentTags())));
        return new Translated(b.build(), processes, racks, new RackSources(fromKafka, lastKnown, unknown), asked,
            weighted, rackTags);
    }

    /** Kafka's strategy, with {@code none} (or nothing) as {@code min_traffic}. */
    static RackStrategy strategy(String asked) {
        if (asked == null || asked.isBlank() || asked.equals(RackStrategy.NONE.configValue())) {
            return RackStrategy.MIN_TRAFFIC;
        }
        return RackStrategy.fromConfig(asked);
    }

    public static TaskId taskId(org.apache.kafka.streams.processor.TaskId id) {
        if (id.topologyName() != null) {
            throw new TaskInputException("task " + id + " belongs to named topology " + id.topologyName()
                + "; named topologies are not supported");
        }
        return new TaskId(id.subtopology(), id.partition());
    }

    public static org.apache.kafka.streams.processor.TaskId kafkaTaskId(TaskId id) {
        return new org.apache.kafka.streams.processor.TaskId(id.subtopology(), id.partition());
    }

    private static SortedSet<TaskId> ids(Set<org.apache.kafka.streams.processor.TaskId> tasks) {
        SortedSet<TaskId> out = new TreeSet<>();
        for (org.apache.kafka.streams.processor.TaskId t : tasks) {
            out.add(taskId(t));
        }
        return out;
    }

    private static Integer cost(GroupAdvice rule, String name) {
        double v = rule.number(name, Double.NaN);
        if (Double.isNaN(v) || v < 0 || v > Integer.MAX_VALUE / WEIGHT_SCALE) {
            return null;
        }
        return (int) Math.round(v);
    }

    /** A partition's racks as Kafka Streams gives them, or null when it has none. */
    private static List<String> racksOf(TaskTopicPartition ttp) {
        Optional<Set<String>> racks;
        try {
            racks = ttp.rackIds();
        } catch (RuntimeException e) {
            return null; // Kafka Streams could not describe the topic
        }
        if (racks == null || racks.isEmpty() || racks.get().isEmpty()) {
            return null;
        }
        return List.copyOf(new TreeSet<>(racks.get()));
    }
}
