package dev.rackwise.bench.jmh;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * A SubscribedTopicDescriber over rack sets built once per trial: a call is a map lookup and a
 * list index, nothing allocated. That is the cheapest a broker's describer can be, so the
 * "one pass over racksForPartition" benchmark is a floor, not the broker's real cost.
 */
public final class RackDescriber implements SubscribedTopicDescriber {
    private final Map<Uuid, List<Set<String>>> racks = new HashMap<>();

    public RackDescriber(Grid grid) {
        for (int t = 0; t < grid.topics; t++) {
            racks.put(grid.topicIds[t], grid.rackSets.get(t));
        }
    }

    @Override
    public int numPartitions(Uuid topicId) {
        List<Set<String>> parts = racks.get(topicId);
        return parts == null ? -1 : parts.size();
    }

    @Override
    public Set<String> racksForPartition(Uuid topicId, int partition) {
        List<Set<String>> parts = racks.get(topicId);
        return parts == null || partition < 0 || partition >= parts.size() ? Set.of() : parts.get(partition);
    }
}
