package dev.rackwise.plugins.classic;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;

/**
 * Who owned what before this round, by Kafka's generation rules for claimed partitions (step 0
 * of AbstractStickyAssignor, KAFKA-12984 and KAFKA-14639; assignor/ownership.py is the same in
 * Python): a partition claimed by two members keeps the claim of the higher generation; two
 * claims of the same generation are both dropped. Claims on topics the group does not assign
 * or beyond the partition count are ignored. Members are visited in HashMap order of their ids,
 * as Kafka's own assignor visits them.
 *
 * <p>Example: c1 (generation 3) and c2 (generation 2) both claim t-0: c1 keeps it; c1 and c3
 * (generation 3) both claim t-1: nobody keeps it.
 */
public final class Ownership {
    private Ownership() {
    }

    /** The previous owner of every partition that has exactly one after the rules. */
    public static Map<TopicPartition, String> previousOwners(Map<String, Subscription> subscriptions,
                                                           Map<String, Integer> partitionCounts) {
        Map<String, Subscription> visit = new HashMap<>(subscriptions);
        Map<TopicPartition, String> claimant = new HashMap<>(); // the last claim compared against
        Map<TopicPartition, String> owner = new HashMap<>();
        for (Map.Entry<String, Subscription> e : visit.entrySet()) {
            String member = e.getKey();
            int gen = e.getValue().generationId().orElse(-1);
            for (TopicPartition tp : e.getValue().ownedPartitions()) {
                Integer count = partitionCounts.get(tp.topic());
                if (count == null || tp.partition() < 0 || tp.partition() >= count) {
                    continue;
                }
                String other = claimant.get(tp);
                if (other == null) {
                    claimant.put(tp, member);
                    owner.put(tp, member);
                    continue;
                }
                // Kafka compares with the other member's subscription generation; a partition a
                // member lists twice is two claims of the same generation (it is revoked).
                int otherGen = visit.get(other).generationId().orElse(-1);
                if (gen == otherGen) {
                    owner.remove(tp);
                    claimant.put(tp, member);
                } else if (gen > otherGen) {
                    owner.put(tp, member);
                    claimant.put(tp, member);
                }
            }
        }
        return owner;
    }
}
