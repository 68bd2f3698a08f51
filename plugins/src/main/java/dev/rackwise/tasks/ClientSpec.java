package dev.rackwise.tasks;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One Kafka Streams process (a client): its capacity in threads, its rack, its KIP-708 client
 * tags, what it held before and how far behind it is on each stateful task.
 *
 * <p>Lags are Kafka's: the records a client must restore to catch up on a task's changelog,
 * or a sentinel: {@link #LAG_RUNNING} (-2, the task is running as an active here) or
 * {@link #LAG_UNKNOWN} (-3). -4 ({@code OFFSET_UNKNOWN}) is taken as "not reported". A
 * stateful task the client does not report lags by: -2 when it was the previous active
 * there, 0 when it was a previous standby, otherwise 0 (an empty changelog): adapters should
 * give every stateful task's lag, as Kafka's {@code KafkaStreamsState.lagFor} does. Lags of
 * tasks the problem does not know, or of stateless tasks, are ignored.
 *
 * @param processId       the process id (a UUID in Kafka; any non-empty string here)
 * @param threads         the client's capacity, {@code >= 1}
 * @param rack            {@code client.rack}, or null when the client has none
 * @param tags            KIP-708 client tags (key → value)
 * @param previousActive  task ids this client ran as actives before
 * @param previousStandby task ids this client held as standbys (or warm-ups) before
 * @param lags            per task id, its lag or a sentinel
 */
public record ClientSpec(String processId, int threads, String rack, SortedMap<String, String> tags,
                         SortedSet<TaskId> previousActive, SortedSet<TaskId> previousStandby,
                         SortedMap<TaskId, Long> lags) {
    /** Kafka's {@code Task.LATEST_OFFSET}: the task runs as an active on this client. */
    public static final long LAG_RUNNING = -2L;
    /** Kafka's {@code SubscriptionInfo.UNKNOWN_OFFSET_SUM}: the lag is not known. */
    public static final long LAG_UNKNOWN = -3L;
    /** Kafka's {@code OffsetCheckpoint.OFFSET_UNKNOWN}: treated as not reported. */
    public static final long LAG_NOT_REPORTED = -4L;

    public ClientSpec {
        Objects.requireNonNull(processId, "processId");
        tags = Collections.unmodifiableSortedMap(new TreeMap<>(tags == null ? Map.of() : tags));
        previousActive = Collections.unmodifiableSortedSet(
                new TreeSet<>(previousActive == null ? Set.of() : previousActive));
        previousStandby = Collections.unmodifiableSortedSet(
                new TreeSet<>(previousStandby == null ? Set.of() : previousStandby));
        lags = Collections.unmodifiableSortedMap(new TreeMap<>(lags == null ? Map.of() : lags));
    }

    /** The same as the canonical constructor, from any maps and sets (copied, sorted). */
    public static ClientSpec of(String processId, int threads, String rack, Map<String, String> tags,
                                Set<TaskId> previousActive, Set<TaskId> previousStandby,
                                Map<TaskId, Long> lags) {
        return new ClientSpec(processId, threads, rack,
                tags == null ? null : new TreeMap<>(tags),
                previousActive == null ? null : new TreeSet<>(previousActive),
                previousStandby == null ? null : new TreeSet<>(previousStandby),
                lags == null ? null : new TreeMap<>(lags));
    }

    /** A client with no tags, no previous tasks and no lags (all fresh). */
    public static ClientSpec of(String processId, int threads, String rack) {
        return new ClientSpec(processId, threads, rack, null, null, null, null);
    }
}
