package dev.rackwise.plugins.broker;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;

/**
 * Names by Admin.describeTopics(TopicCollection.ofTopicIds(...)), cached for good: a topic id is
 * never reused, so its name never changes. A broker answers this from its metadata cache,
 * not from the group coordinator; it is asked in the background and never waited for.
 */
public final class AdminTopicNames implements TopicNames {
    private static final int MAX_CACHED = 100_000;

    private final Admin admin;
    private static final int LOOKUP_TIMEOUT_MS = 30_000;

    private final Map<Uuid, String> cache = new ConcurrentHashMap<>();
    private final Set<Uuid> pending = ConcurrentHashMap.newKeySet();

    public AdminTopicNames(Admin admin) {
        this.admin = admin;
    }

    @Override
    public Map<Uuid, String> known(Set<Uuid> ids) {
        Map<Uuid, String> out = new HashMap<>();
        Set<Uuid> missing = new HashSet<>();
        for (Uuid id : ids) {
            String name = cache.get(id);
            if (name != null) {
                out.put(id, name);
            } else if (pending.add(id)) {
                missing.add(id);
            }
        }
        if (!missing.isEmpty()) {
            lookUp(missing);
        }
        return out;
    }

    /** Asks the brokers in the background; the answer fills the cache for the next call. */
    private void lookUp(Set<Uuid> ids) {
        if (cache.size() > MAX_CACHED) {
            cache.clear();
        }
        Map<Uuid, KafkaFuture<TopicDescription>> futures;
        try {
            futures = admin.describeTopics(TopicCollection.ofTopicIds(ids),
                new DescribeTopicsOptions().timeoutMs(LOOKUP_TIMEOUT_MS)).topicIdValues();
        } catch (RuntimeException e) {
            pending.removeAll(ids);
            return;
        }
        for (Map.Entry<Uuid, KafkaFuture<TopicDescription>> e : futures.entrySet()) {
            e.getValue().whenComplete((description, error) -> {
                if (description != null) {
                    cache.put(e.getKey(), description.name());
                }
                pending.remove(e.getKey()); // unknown or deleted: asked again next time
            });
        }
    }
}
