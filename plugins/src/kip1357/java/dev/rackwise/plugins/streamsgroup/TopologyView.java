package dev.rackwise.plugins.streamsgroup;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the adapter knows of a streams group's topics beyond the public {@code TopologyDescriber}
 * (which names no topic and no rack): each subtopology's source and changelog topics, and
 * each partition's replica racks, with where that came from.
 *
 * <p>Example: subtopology "0" reads {@code orders} and logs to {@code app-store-changelog};
 * {@code racks("orders", 3)} is {@code [az1, az2]}; so task 0_3's active is rack-local in az1
 * or az2.
 *
 * @param source        where the racks came from
 * @param subtopologies per subtopology id, its topics (a subtopology missing here is unknown)
 * @param racks         replica racks per partition; null when the partition is unknown
 */
public record TopologyView(RackSource source, SortedMap<String, Topics> subtopologies, RackLookup racks) {
    /** The view that knows nothing: tasks are placed without racks. */
    public static final TopologyView NONE = new TopologyView(RackSource.NONE, new TreeMap<>(), (t, p) -> null);

    public TopologyView {
        subtopologies = Collections.unmodifiableSortedMap(new TreeMap<>(subtopologies));
    }

    /** Replica racks of one partition, read without waiting; null when not known. */
    @FunctionalInterface
    public interface RackLookup {
        List<String> racks(String topic, int partition);
    }

    /**
     * One subtopology's topics, held sorted.
     *
     * @param sources    what its active tasks read: source and repartition source topics
     * @param changelogs what its standbys restore from: state changelog topics
     */
    public record Topics(Set<String> sources, Set<String> changelogs) {
        public Topics {
            sources = Collections.unmodifiableSortedSet(new TreeSet<>(sources));
            changelogs = Collections.unmodifiableSortedSet(new TreeSet<>(changelogs));
        }
    }
}
