package dev.rackwise.plugins.streamsgroup;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
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
import dev.rackwise.plugins.advice.GroupCosts;
import dev.rackwise.tasks.ClientSpec;
import dev.rackwise.tasks.RackStrategy;
import dev.rackwise.tasks.TaskConfig;
import dev.rackwise.tasks.TaskId;
import dev.rackwise.tasks.TaskProblem;
import dev.rackwise.tasks.TaskSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.AssignmentConfigs;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

/**
 * A streams group's inputs (KIP-1357 {@code GroupSpec} + {@code TopologyDescriber}, plus the
 * topics and racks of a {@link TopologyView}) as one {@link TaskProblem} for the task core.
 *
 * <ul>
 *   <li>Clients are processes: members sharing a {@code processId} are one client whose thread
 *       count is the number of its members (KIP-1071 has one member per stream thread).</li>
 *   <li>Tasks: {@code maxNumInputPartitions(s)} per subtopology {@code s}; task {@code s_p}
 *       reads partition {@code p} of each source (and repartition source) topic that has it,
 *       and restores partition {@code p} of each changelog.</li>
 *   <li>Lags: end offset (the largest any member reports for the task; Long.MAX_VALUE is
 *       Kafka Streams' "unknown") minus the process's
 *       own offset; the task's current active process is {@code -2} (running); a process that
 *       reports nothing must restore it all (the end offset; 0 while no end offset is known,
 *       i.e. a new group).</li>
 *   <li>Configs: the group's {@code streams.num.standby.replicas} and rack-aware tags, KIP-925
 *       {@code min_traffic}, costs from the advice (KIP-925's 10/1 without).</li>
 * </ul>
 *
 * <p>Example: members m1, m2 of process p1 (az1) and m3 of p2 (az2); subtopology "0" with 4
 * input partitions: clients p1 (2 threads, az1) and p2 (1 thread, az2), tasks 0_0..0_3.
 */
public final class StreamsGroupProblem {
    /** Partition weights are relative bytes/s (1 = the mean); the core wants integers. */
    static final int WEIGHT_SCALE = 100;
    /** Kafka Streams' default acceptable.recovery.lag; the assignor API does not carry the group's. */
    static final long ACCEPTABLE_RECOVERY_LAG = 10_000L;
    private static final String UNKNOWN_TOPIC = "__rackwise.unknown-topics.subtopology-";

    private final TaskProblem problem;
    private final SubtopologyIds ids;
    private final SortedMap<String, SortedSet<String>> membersByProcess;
    private final boolean tagsDropped;

    private StreamsGroupProblem(TaskProblem problem, SubtopologyIds ids,
                                SortedMap<String, SortedSet<String>> membersByProcess, boolean tagsDropped) {
        this.problem = problem;
        this.ids = ids;
        this.membersByProcess = membersByProcess;
        this.tagsDropped = tagsDropped;
    }

    public TaskProblem problem() {
        return problem;
    }

    /** Subtopology ids (strings under KIP-1071) to and from the core's integers. */
    public SubtopologyIds ids() {
        return ids;
    }

    /** Per process id, its member ids (sorted). */
    public SortedMap<String, SortedSet<String>> membersByProcess() {
        return membersByProcess;
    }

    /** True when rack-aware tags were configured but some process lacks one (tags not used). */
    public boolean tagsDropped() {
        return tagsDropped;
    }

    /** Builds the problem; a {@link dev.rackwise.tasks.TaskInputException} says what is wrong. */
    public static StreamsGroupProblem of(GroupSpec spec, TopologyDescriber describer, TopologyView view,
                                         AdviceView advice, GroupCosts costs) {
        SubtopologyIds ids = SubtopologyIds.of(describer.subtopologies());
        TaskProblem.Builder b = TaskProblem.builder();
        SortedMap<TaskId, Boolean> stateful = new TreeMap<>();
        for (String sub : ids.sorted()) {
            int n = describer.maxNumInputPartitions(sub);
            boolean isStateful = describer.isStateful(sub);
            TopologyView.Topics topics = view.subtopologies().get(sub);
            for (int p = 0; p < n; p++) {
                TaskId id = new TaskId(ids.toInt(sub), p);
                List<TopicPartition> sources = partitions(topics == null ? Set.of() : topics.sources(), p, view, sub,
                    "");
                List<TopicPartition> changelogs = isStateful
                    ? partitions(topics == null ? Set.of() : topics.changelogs(), p, view, sub, "-changelog")
                    : List.of();
                for (TopicPartition tp : sources) {
                    racksAndWeight(b, tp, view, advice);
                }
                for (TopicPartition tp : changelogs) {
                    racksAndWeight(b, tp, view, advice);
                }
                b.task(new TaskSpec(id, isStateful, sources, changelogs));
                stateful.put(id, isStateful);
            }
        }
        SortedMap<String, SortedSet<String>> byProcess = new TreeMap<>();
        for (String m : spec.memberIds()) {
            byProcess.computeIfAbsent(spec.memberMetadata(m).processId(), k -> new TreeSet<>()).add(m);
        }
        Map<TaskId, Long> endOffsets = endOffsets(spec, ids);
        // The stateful tasks in order with their end offsets, once for all clients (each
        // client walks them for its lags).
        List<TaskId> statefulIds = new ArrayList<>();
        List<Long> statefulEnds = new ArrayList<>();
        for (Map.Entry<TaskId, Boolean> t : stateful.entrySet()) {
            if (t.getValue()) {
                statefulIds.add(t.getKey());
                statefulEnds.add(endOffsets.get(t.getKey()));
            }
        }
        TaskId[] statefulOrder = statefulIds.toArray(new TaskId[0]);
        Long[] ends = statefulEnds.toArray(new Long[0]);
        AssignmentConfigs configs = spec.configs();
        List<String> tags = configs.rackAwareAssignmentTags() == null ? List.of() : configs.rackAwareAssignmentTags();
        boolean tagsDropped = false;
        for (Map.Entry<String, SortedSet<String>> e : byProcess.entrySet()) {
            ClientSpec c = client(spec, ids, e.getKey(), e.getValue(), stateful, statefulOrder, ends);
            if (!c.tags().keySet().containsAll(tags)) {
                tagsDropped = true;
            }
            b.client(c);
        }
        TaskConfig config = TaskConfig.defaults()
            .withAcceptableRecoveryLag(ACCEPTABLE_RECOVERY_LAG)
            .withNumStandbyReplicas(configs.numStandbyReplicas())
            .withRackAwareTags(tagsDropped ? List.of() : tags)
            .withRackAwareStrategy(RackStrategy.MIN_TRAFFIC)
            .withTrafficCost((int) Math.round(costs.trafficCost()))
            .withNonOverlapCost((int) Math.round(costs.nonOverlapCost() * (advice.measured() ? WEIGHT_SCALE : 1)));
        b.config(config);
        return new StreamsGroupProblem(b.build(), ids, byProcess, tagsDropped);
    }

    /**
     * Partition {@code p} of each topic that has it (its racks are known), else of every topic
     * named (the core then sees a partition without racks and turns rack awareness off), else a
     * placeholder: topics are unknown, so is every rack.
     */
    private static List<TopicPartition> partitions(Collection<String> topics, int p, TopologyView view, String sub,
                                                   String suffix) {
        List<TopicPartition> known = new ArrayList<>();
        for (String t : topics) {
            if (view.racks().racks(t, p) != null) {
                known.add(new TopicPartition(t, p));
            }
        }
        if (!known.isEmpty()) {
            return known;
        }
        List<TopicPartition> all = new ArrayList<>();
        for (String t : topics) {
            all.add(new TopicPartition(t, p));
        }
        return all.isEmpty() ? List.of(new TopicPartition(UNKNOWN_TOPIC + sub + suffix, p)) : all;
    }

    private static void racksAndWeight(TaskProblem.Builder b, TopicPartition tp, TopologyView view,
                                       AdviceView advice) {
        List<String> racks = view.racks().racks(tp.topic(), tp.partition());
        if (racks != null && !racks.isEmpty()) {
            b.replicaRacks(tp, racks);
        }
        if (advice.measured()) {
            b.weight(tp, Math.max(1L, Math.round(advice.weight(tp.topic(), tp.partition()) * WEIGHT_SCALE)));
        }
    }

    /**
     * Per task, the largest end offset any member reports. Kafka Streams 4.4 reports
     * {@code Long.MAX_VALUE} for a task whose end offset it does not know (seen on the testbed:
     * every standby that has not fetched yet), so that value means "unknown", never "far behind".
     */
    private static Map<TaskId, Long> endOffsets(GroupSpec spec, SubtopologyIds ids) {
        Map<TaskId, Long> out = new HashMap<>();
        for (String m : spec.memberIds()) {
            forEachTask(spec.memberAssignmentState(m).taskEndOffsets(), ids, (TaskId id, Long v) -> {
                if (v != null && v >= 0 && v != Long.MAX_VALUE) {
                    out.merge(id, v, Math::max);
                }
            });
        }
        return out;
    }

    private static ClientSpec client(GroupSpec spec, SubtopologyIds ids, String processId, SortedSet<String> members,
                                     SortedMap<TaskId, Boolean> stateful, TaskId[] statefulOrder,
                                     Long[] ends) {
        Map<String, Integer> racks = new TreeMap<>();
        SortedMap<String, String> tags = new TreeMap<>();
        SortedSet<TaskId> active = new TreeSet<>();
        SortedSet<TaskId> standby = new TreeSet<>();
        Map<TaskId, Long> offsets = new HashMap<>();
        Set<TaskId> unknown = new java.util.HashSet<>(); // membership only
        for (String m : members) {
            MemberAssignmentMetadata meta = spec.memberMetadata(m);
            Optional<String> rack = meta.rackId() == null ? Optional.empty() : meta.rackId();
            rack.filter(r -> !r.isEmpty()).ifPresent(r -> racks.merge(r, 1, Integer::sum));
            if (tags.isEmpty() && meta.clientTags() != null) {
                tags.putAll(meta.clientTags());
            }
            MemberAssignmentState state = spec.memberAssignmentState(m);
            forEachTask(state.activeTasks(), ids, (TaskId id, Object v) -> active.add(id));
            forEachTask(state.standbyTasks(), ids, (TaskId id, Object v) -> standby.add(id));
            forEachTask(state.warmupTasks(), ids, (TaskId id, Object v) -> standby.add(id));
            forEachTask(state.taskOffsets(), ids, (TaskId id, Long v) -> {
                if (v == null) {
                    return;
                }
                if (v >= 0 && v != Long.MAX_VALUE) {
                    offsets.merge(id, v, Math::max);
                } else if (v.longValue() == ClientSpec.LAG_UNKNOWN) {
                    unknown.add(id);
                }
            });
        }
        standby.removeAll(active);
        active.retainAll(stateful.keySet());
        standby.retainAll(stateful.keySet());
        // the rack most of the process's members name; a tie goes to the first in order
        String rack = null;
        for (Map.Entry<String, Integer> r : racks.entrySet()) {
            if (rack == null || r.getValue() > racks.get(rack)) {
                rack = r.getKey();
            }
        }
        SortedMap<TaskId, Long> lags = new TreeMap<>();
        Set<TaskId> activeSet = new java.util.HashSet<>(active); // membership per task: hashed
        boolean anyOffset = !offsets.isEmpty();
        boolean anyUnknown = !unknown.isEmpty();
        for (int i = 0; i < statefulOrder.length; i++) {
            TaskId id = statefulOrder[i];
            Long end = ends[i];
            if (end == null && !anyOffset && !anyUnknown) {
                continue; // lag 0 either way (or a previous active's default)
            }
            Long own = anyOffset ? offsets.get(id) : null;
            long lag;
            if (activeSet.contains(id)) {
                continue; // the core's default for a previous active: -2, running
            } else if (own != null) {
                lag = end == null ? 0L : Math.max(0L, end - own);
            } else if (anyUnknown && unknown.contains(id)) {
                lag = ClientSpec.LAG_UNKNOWN;
            } else {
                lag = end == null ? 0L : end;
            }
            if (lag != 0L) {
                lags.put(id, lag); // 0 is the core's default otherwise: only the others are listed
            }
        }
        return new ClientSpec(processId, members.size(), rack, tags, active, standby, lags);
    }

    @FunctionalInterface
    private interface TaskVisitor<V> {
        void visit(TaskId id, V value);
    }

    /** Visits {@code subtopology -> partitions} maps of either shape, skipping unknown subtopologies. */
    private static <V> void forEachTask(Map<String, ?> bySub, SubtopologyIds ids, TaskVisitor<V> visitor) {
        if (bySub == null) {
            return;
        }
        for (Map.Entry<String, ?> e : bySub.entrySet()) {
            if (!ids.contains(e.getKey()) || e.getValue() == null) {
                continue;
            }
            int sub = ids.toInt(e.getKey());
            if (e.getValue() instanceof Map<?, ?> values) {
                for (Map.Entry<?, ?> v : values.entrySet()) {
                    if (v.getKey() instanceof Integer p && p >= 0) {
                        @SuppressWarnings("unchecked")
                        V value = (V) v.getValue();
                        visitor.visit(new TaskId(sub, p), value);
                    }
                }
            } else if (e.getValue() instanceof Collection<?> parts) {
                for (Object p : parts) {
                    if (p instanceof Integer i && i >= 0) {
                        visitor.visit(new TaskId(sub, i), null);
                    }
                }
            }
        }
    }
}
