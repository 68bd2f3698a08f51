package dev.rackwise.plugins.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.junit.jupiter.api.Test;

/**
 * Members' current targets kept across calls: only Kafka's own immutable stored assignments, by
 * the identity of their map; anything else is read on every call, so a map changed in place is
 * never answered from what it held before.
 */
class HeldTargetsTest {
    private static final Uuid A = new Uuid(1, 2);
    private static final Uuid B = new Uuid(3, 4);

    @Test
    void kafkasStoredTargetsAreReadOncePerObject() {
        HeldTargets cache = new HeldTargets();
        int n = 1_000; // past several resizes
        MemberAssignment[] members = new MemberAssignment[n];
        for (int i = 0; i < n; i++) {
            members[i] = kafkaMember(Map.of(A, Set.of(i, i + n), B, Set.of(i)));
        }
        HeldTargets.Held[] first = cache.of(members);
        assertEquals(0, cache.hits());
        assertEquals(n, cache.reads());
        // the coordinator's next call: new member objects over the same stored assignments
        MemberAssignment[] again = new MemberAssignment[n];
        for (int i = 0; i < n; i++) {
            again[i] = kafkaMember(members[i].partitions());
        }
        HeldTargets.Held[] second = cache.of(again);
        assertEquals(n, cache.hits());
        assertEquals(n, cache.reads());
        for (int i = 0; i < n; i++) {
            assertSame(first[i], second[i]);
            assertEquals(Map.of(A, Set.of(i, i + n), B, Set.of(i)), asMap(second[i]));
        }
        // a changed target is a new Assignment: read, whatever its content
        again[7] = kafkaMember(Map.of(B, Set.of(5)));
        HeldTargets.Held[] third = cache.of(again);
        assertEquals(Map.of(B, Set.of(5)), asMap(third[7]));
        assertEquals(2 * n - 1, cache.hits());
        assertEquals(n + 1, cache.reads());
    }

    @Test
    void anyOtherTargetIsReadEveryCall() {
        HeldTargets cache = new HeldTargets();
        Map<Uuid, Set<Integer>> mutable = new HashMap<>();
        mutable.put(A, new HashSet<>(Set.of(0, 1)));
        MemberAssignment own = () -> mutable; // not Kafka's class: its map may change in place
        assertEquals(Map.of(A, Set.of(0, 1)), asMap(cache.of(new MemberAssignment[] {own})[0]));
        mutable.get(A).remove(0);
        mutable.put(B, new HashSet<>(Set.of(9)));
        assertEquals(Map.of(A, Set.of(1), B, Set.of(9)), asMap(cache.of(new MemberAssignment[] {own})[0]));
        assertEquals(0, cache.hits());
        assertEquals(0, cache.size());
    }

    @Test
    void kafkasStoredTargetIsUnmodifiableAndHandedOverAsIs() {
        // what the identity key rests on: Kafka's member hands over its Assignment's own map,
        // which no caller can change (a Kafka where this fails must not be trusted)
        Map<Uuid, Set<Integer>> replayed = new HashMap<>();
        replayed.put(A, new HashSet<>(Set.of(1, 2)));
        Assignment stored = new Assignment(replayed);
        MemberAssignment member = new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(),
            Set.of(A), stored);
        assertSame(stored.partitions(), member.partitions());
        assertSame(stored.partitions(), new Assignment(stored.partitions()).partitions()); // kept as is when re-wrapped
        assertThrows(UnsupportedOperationException.class, () -> member.partitions().put(B, Set.of(3)));
        assertEquals(HeldTargets.KAFKA_MEMBER, member.getClass().getName());
    }

    @Test
    void callsOnSeveralThreadsNeverWaitAndAlwaysGetTheirOwnTargets() throws Exception {
        HeldTargets cache = new HeldTargets();
        int threads = 4;
        int n = 500;
        java.util.List<java.util.concurrent.Future<Integer>> done = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                int shift = t % 2; // two groups, each on two threads: shared and unshared objects
                MemberAssignment[] members = new MemberAssignment[n];
                for (int i = 0; i < n; i++) {
                    members[i] = kafkaMember(Map.of(A, Set.of(i + shift * n)));
                }
                done.add(pool.submit(() -> {
                    int checked = 0;
                    for (int call = 0; call < 200; call++) {
                        HeldTargets.Held[] got = cache.of(members);
                        for (int i = call % 7; i < n; i += 7) {
                            assertEquals(members[i].partitions(), asMap(got[i]));
                            checked++;
                        }
                    }
                    return checked;
                }));
            }
            for (java.util.concurrent.Future<Integer> f : done) {
                assertTrue(f.get() > 14_000, "targets checked"); // about 71.4 a call, 200 calls
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * 200L * n, cache.hits() + cache.reads());
        assertTrue(cache.hits() > 0, "some calls found targets kept: " + cache.hits());
    }

    @Test
    void noneKeepsNothing() {
        MemberAssignment member = kafkaMember(Map.of(A, Set.of(3)));
        HeldTargets.NONE.of(new MemberAssignment[] {member});
        HeldTargets.NONE.of(new MemberAssignment[] {member});
        assertEquals(0, HeldTargets.NONE.hits());
        assertEquals(0, HeldTargets.NONE.size());
    }

    @Test
    void anEmptyTargetHoldsNothing() {
        HeldTargets.Held empty = new HeldTargets().of(new MemberAssignment[] {kafkaMember(Map.of())})[0];
        assertEquals(0, empty.size());
        assertEquals(0, empty.topics());
        assertArrayEquals(new int[] {0}, empty.start);
    }

    private static MemberAssignment kafkaMember(Map<Uuid, Set<Integer>> target) {
        return new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), Set.of(A, B),
            new Assignment(target));
    }

    private static Map<Uuid, Set<Integer>> asMap(HeldTargets.Held h) {
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        for (int j = 0; j < h.topics(); j++) {
            Set<Integer> ps = new TreeSet<>();
            for (int at = h.start[j]; at < h.start[j + 1]; at++) {
                ps.add(h.parts[at]);
            }
            out.put(new Uuid(h.hi[j], h.lo[j]), ps);
        }
        return out;
    }
}
