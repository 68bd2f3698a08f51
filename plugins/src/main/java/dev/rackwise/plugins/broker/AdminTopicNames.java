package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;

/**
 * Names by Admin.describeTopics(TopicCollection.ofTopicIds(...)), cached for good: a topic id is
 * never reused, so its name never changes. A broker answers this from its metadata cache,
 * not from the group coordinator, so it cannot wait on the assignment it serves.
 */
public final class AdminTopicNames implements TopicNames {
    private static final int MAX_CACHED = 100_000;

    private final Admin admin;
    private final Map<Uuid, String> cache = new ConcurrentHashMap<>();

    public AdminTopicNames(Admin admin) {
        this.admin = admin;
    }

    @Override
    public Map<Uuid, String> resolve(Set<Uuid> ids, long timeoutMs) {
        Map<Uuid, String> out = new HashMap<>();
        Set<Uuid> missing = new HashSet<>();
        for (Uuid id : ids) {
            String name = cache.get(id);
            if (name != null) {
                out.put(id, name);
            } else {
                missing.add(id);
            }
        }
        if (missing.isEmpty()) {
            return out;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        Map<Uuid, KafkaFuture<TopicDescription>> futures = admin.describeTopics(TopicCollection.ofTopicIds(missing),
            new DescribeTopicsOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE, timeoutMs))).topicIdValues();
        if (cache.size() > MAX_CACHED) {
            cache.clear();
        }
        for (Map.Entry<Uuid, KafkaFuture<TopicDescription>> e : futures.entrySet()) {
            try {
                String name = e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS).name();
                cache.put(e.getKey(), name);
                out.put(e.getKey(), name);
            } catch (ExecutionException | TimeoutException ex) {
                // unknown or deleted topic, or no answer in time: left out, the caller decides
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return out;
    }
}
