package dev.rackwise.tasks;

import dev.rackwise.core.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Whether rack awareness is on (Kafka's {@code canEnableRackAwareAssignor}) and, per task and
 * client rack, the weight of the task's partitions with no replica in that rack: source
 * partitions for actives, changelog partitions for standbys (docs/streams-assignor.md § 2).
 */
final class RackContext {
    final boolean enabled;
    final String reason;
    final List<String> racks;
    final Map<TaskId, SortedMap<String, Long>> activeMisses;
    final Map<TaskId, SortedMap<String, Long>> standbyMisses;

    private RackContext(boolean enabled, String reason, List<String> racks,
                        Map<TaskId, SortedMap<String, Long>> activeMisses,
                        Map<TaskId, SortedMap<String, Long>> standbyMisses) {
        this.enabled = enabled;
        this.reason = reason;
        this.racks = racks;
        this.activeMisses = activeMisses;
        this.standbyMisses = standbyMisses;
    }

    long activeCost(TaskId task, String rack, long traffic) {
        return exact(traffic, activeMisses.get(task).get(rack));
    }

    long standbyCost(TaskId task, String rack, long traffic) {
        return exact(traffic, standbyMisses.get(task).get(rack));
    }

    private static long exact(long traffic, long weight) {
        try {
            return Math.multiplyExact(traffic, weight);
        } catch (ArithmeticException e) {
            throw new TaskInputException("traffic_cost x weight overflows 64 bits: scale the weights down");
        }
    }

    static RackContext of(TaskProblem p, ClientState[] clients) {
        TreeSet<String> rackSet = new TreeSet<>(Lex.STRING);
        boolean rackless = false;
        for (ClientState c : clients) {
            if (c.rack == null || c.rack.isEmpty()) {
                rackless = true;
            } else {
                rackSet.add(c.rack);
            }
        }
        List<String> racks = List.copyOf(rackSet);
        Map<TaskId, SortedMap<String, Long>> empty = Map.of();
        TaskConfig config = p.config();
        if (config.rackAwareStrategy() == RackStrategy.NONE) {
            return new RackContext(false, "strategy none", racks, empty, empty);
        }
        if (rackless) {
            return new RackContext(false, "a client has no rack", racks, empty, empty);
        }
        Map<TaskId, List<TopicPartition>> sources = new TreeMap<>();
        Map<TaskId, List<TopicPartition>> changelogs = new TreeMap<>();
        for (TaskSpec t : p.tasks().values()) {
            sources.put(t.id(), t.sourcePartitions());
            if (t.stateful()) {
                changelogs.put(t.id(), t.changelogPartitions());
            }
        }
        Map<TaskId, SortedMap<String, Long>> active = misses(p, sources, racks);
        if (active == null) {
            return new RackContext(false, "a source partition has a replica without rack",
                    racks, empty, empty);
        }
        Map<TaskId, SortedMap<String, Long>> standby = empty;
        if (config.numStandbyReplicas() > 0) {
            // Kafka describes every changelog topic and disables rack awareness for actives
            // too when one of them cannot be described or has a rackless replica.
            standby = misses(p, changelogs, racks);
            if (standby == null) {
                return new RackContext(false, "a changelog partition is missing or has no rack",
                        racks, empty, empty);
            }
        }
        return new RackContext(true, "enabled", racks, active, standby);
    }

    private static Map<TaskId, SortedMap<String, Long>> misses(
            TaskProblem p, Map<TaskId, List<TopicPartition>> parts, List<String> racks) {
        Map<TaskId, SortedMap<String, Long>> out = new TreeMap<>();
        for (Map.Entry<TaskId, List<TopicPartition>> e : parts.entrySet()) {
            List<Set<String>> perTp = new ArrayList<>();
            for (TopicPartition tp : e.getValue()) {
                Set<String> r = partitionRacks(p.replicaRacks().get(tp));
                if (r == null) {
                    return null;
                }
                perTp.add(r);
            }
            SortedMap<String, Long> byRack = new TreeMap<>(Lex.STRING);
            for (String rack : racks) {
                long sum = 0;
                for (int i = 0; i < perTp.size(); i++) {
                    if (!perTp.get(i).contains(rack)) {
                        try {
                            sum = Math.addExact(sum, p.weight(e.getValue().get(i)));
                        } catch (ArithmeticException overflow) {
                            throw new TaskInputException("the weights of task " + e.getKey()
                                    + " overflow 64 bits: scale the weights down");
                        }
                    }
                }
                byRack.put(rack, sum);
            }
            out.put(e.getKey(), byRack);
        }
        return out;
    }

    /** All replica racks, or null when Kafka would refuse (unknown, no replica, rackless). */
    private static Set<String> partitionRacks(Collection<String> replicas) {
        if (replicas == null || replicas.isEmpty()) {
            return null;
        }
        Set<String> out = new HashSet<>();
        for (String r : replicas) {
            if (r == null) {
                return null;
            }
            out.add(r);
        }
        return out;
    }
}
