package dev.rackwise.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One rack-optimal assignment problem (docs/rack-optimal.md § 1), immutable; built with
 * {@link #builder()}. Members, topics and racks are held sorted, so the order they were added
 * in never matters.
 *
 * <pre>{@code
 * Problem p = Problem.builder().racks(List.of("az1", "az2"))
 *     .member("m1", "az1", true, Set.of("t"))
 *     .topic("t", List.of(new PartitionSpec(List.of("az1"), "az1")))
 *     .build();
 * }</pre>
 */
public final class Problem {
    private final List<String> racks;
    private final double trafficCost;
    private final double moveCost;
    private final List<MemberSpec> members;
    private final SortedMap<String, List<PartitionSpec>> topics;
    /** Per topic, the previous owner of each partition (null: none), as the builder took them. */
    private final Map<String, String[]> owners;
    private volatile SortedMap<TopicPartition, String> previousOwners;

    private Problem(Builder b) {
        this.racks = List.copyOf(new TreeSet<>(b.racks));
        this.trafficCost = b.trafficCost;
        this.moveCost = b.moveCost;
        this.members = List.copyOf(b.members.values());
        // The builder's lists are copies already (Builder.topic).
        this.topics = Collections.unmodifiableSortedMap(new TreeMap<>(b.topics));
        Map<String, String[]> o = new HashMap<>(2 * b.owners.size() + 1);
        b.owners.forEach((k, v) -> o.put(k, v.clone()));
        this.owners = o;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every broker rack, sorted, without duplicates ({@code R} is their number). */
    public List<String> racks() {
        return racks;
    }

    /** α: the cost of one unit of weight read across racks (KIP-925's traffic_cost). */
    public double trafficCost() {
        return trafficCost;
    }

    /** β: the cost of moving one partition away from its previous owner (non_overlap_cost). */
    public double moveCost() {
        return moveCost;
    }

    /** The members, sorted by id. */
    public List<MemberSpec> members() {
        return members;
    }

    /** Per topic name (sorted), its partitions in partition order. */
    public SortedMap<String, List<PartitionSpec>> topics() {
        return topics;
    }

    /**
     * The member that owned each partition before. The id need not be a member any more: such
     * a partition moves wherever it goes.
     */
    public SortedMap<TopicPartition, String> previousOwners() {
        SortedMap<TopicPartition, String> out = previousOwners;
        if (out == null) { // built on first use: the core reads ownerArrays()
            SortedMap<TopicPartition, String> m = new TreeMap<>();
            owners.forEach((t, a) -> {
                for (int p = 0; p < a.length; p++) {
                    if (a[p] != null) {
                        m.put(new TopicPartition(t, p), a[p]);
                    }
                }
            });
            out = Collections.unmodifiableSortedMap(m);
            previousOwners = out;
        }
        return out;
    }

    /** Per topic, its partitions' previous owners by partition (null: none; read-only). */
    Map<String, String[]> ownerArrays() {
        return owners;
    }

    /** Collects a problem; {@link #build()} checks it. Not thread-safe; the Problem is. */
    public static final class Builder {
        private final List<String> racks = new ArrayList<>();
        private double trafficCost = 10.0;
        private double moveCost = 1.0;
        private final Map<String, MemberSpec> members = new TreeMap<>();
        private final Map<String, List<PartitionSpec>> topics = new TreeMap<>();
        private final Map<String, String[]> owners = new HashMap<>();

        private Builder() {
        }

        /** The cluster's broker racks (duplicates are merged). */
        public Builder racks(Collection<String> clusterRacks) {
            racks.addAll(IndexedProblem.checkedRacks(clusterRacks));
            return this;
        }

        /** α ≥ 0 (default 10) and β ≥ 0 (default 1). */
        public Builder costs(double traffic, double move) {
            IndexedProblem.checkCosts(traffic, move);
            this.trafficCost = traffic;
            this.moveCost = move;
            return this;
        }

        public Builder member(MemberSpec member) {
            if (member == null) {
                throw new CoreInputException("a member is null");
            }
            if (members.putIfAbsent(member.id(), member) != null) {
                throw new CoreInputException("member " + member.id() + " is listed twice");
            }
            return this;
        }

        public Builder member(String id, String rack, boolean readsFollowers, Collection<String> topics) {
            // A set (the shared one of MemberSpec.topicSet above all) goes in as it is.
            Set<String> set = topics instanceof Set<String> s ? s
                    : topics == null ? null : new java.util.LinkedHashSet<>(topics);
            return member(new MemberSpec(id, rack, readsFollowers, set));
        }

        /** A topic's partitions, partition 0 first. */
        public Builder topic(String name, List<PartitionSpec> partitions) {
            if (name == null) {
                throw new CoreInputException("a topic name is null");
            }
            if (partitions == null) {
                throw new CoreInputException("topic " + name + " has no partition list");
            }
            for (int i = 0; i < partitions.size(); i++) {
                if (partitions.get(i) == null) {
                    throw new CoreInputException("partition " + name + "-" + i + " is null");
                }
            }
            if (topics.putIfAbsent(name, List.copyOf(partitions)) != null) {
                throw new CoreInputException("topic " + name + " is listed twice");
            }
            return this;
        }

        /** The member that owned {@code topic-partition} before (at most one per partition). */
        public Builder previousOwner(String topic, int partition, String memberId) {
            if (topic == null || memberId == null || memberId.isEmpty()) {
                throw new CoreInputException("a previous owner needs a topic and a member id");
            }
            if (partition < 0) {
                throw new CoreInputException("previous owner of " + topic + "-" + partition + ": negative partition");
            }
            String[] a = owners.get(topic);
            if (a == null || partition >= a.length) {
                a = a == null ? new String[Math.max(partition + 1, 8)]
                        : Arrays.copyOf(a, Math.max(partition + 1, 2 * a.length));
                owners.put(topic, a);
            }
            String before = a[partition];
            if (before == null) {
                a[partition] = memberId;
            } else if (!before.equals(memberId)) {
                throw new CoreInputException(topic + "-" + partition + " has two previous owners: "
                        + before + " and " + memberId);
            }
            return this;
        }

        /**
         * Every previous owner of {@code topic} at once: {@code ownersByPartition[p]} owned
         * partition {@code p} (null: none). The same as {@link #previousOwner} per entry.
         */
        public Builder previousOwners(String topic, String[] ownersByPartition) {
            if (topic == null) {
                throw new CoreInputException("a previous owner needs a topic and a member id");
            }
            if (!owners.containsKey(topic)) {
                for (String m : ownersByPartition) {
                    if (m != null && m.isEmpty()) {
                        throw new CoreInputException("a previous owner needs a topic and a member id");
                    }
                }
                owners.put(topic, ownersByPartition.clone());
                return this;
            }
            for (int p = 0; p < ownersByPartition.length; p++) {
                if (ownersByPartition[p] != null) {
                    previousOwner(topic, p, ownersByPartition[p]);
                }
            }
            return this;
        }

        /**
         * The problem. A subscribed topic that is not listed has no partitions (Kafka's
         * metadata does not know it yet); a previous owner of a partition that is not in the
         * problem is ignored.
         */
        public Problem build() {
            return new Problem(this);
        }
    }
}
