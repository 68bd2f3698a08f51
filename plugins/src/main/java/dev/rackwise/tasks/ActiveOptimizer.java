package dev.rackwise.tasks;

import dev.rackwise.core.LexFlow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * KIP-925's active-task optimisation, solved exactly (docs/streams-assignor.md § 4.1, § 6):
 * re-place a step's tasks keeping every client's count of them, minimising
 * {@code traffic_cost · missed weight + non_overlap_cost · moved}; {@code balance_subtopology}
 * also caps each (client, subtopology) at ⌈n_c / T · T_s⌉. Ties: the least standby tie
 * sum, then the fewest moves, then {@link LexFlow}'s perturbation (in two stages, § 6).
 *
 * <p>Example: task 0_0 reads orders-0 (replicas az1, az2) and sits on x in az3 (cost 10);
 * y in az1 holds 0_1 whose partition lives in az3 only (cost 10). Swapping costs 1 + 1.
 */
final class ActiveOptimizer {
    private ActiveOptimizer() {
    }

    /** Re-places {@code tasks} on {@code clients}; returns the step's cost. */
    static long optimize(ClientState[] clients, List<TaskId> tasks, RackContext ctx,
                         RackStrategy strategy, long traffic, long nonOverlap,
                         Map<TaskId, SortedMap<String, Long>> ties) {
        Map<TaskId, Integer> owner = new HashMap<>();
        for (int i = 0; i < clients.length; i++) {
            for (TaskId t : clients[i].active) {
                owner.put(t, i);
            }
        }
        List<TaskId> taskList = new ArrayList<>(new java.util.TreeSet<>(tasks));
        if (taskList.isEmpty()) {
            return 0;
        }
        int n = clients.length;
        int[] counts = new int[n];
        for (TaskId t : taskList) {
            Integer o = owner.get(t);
            if (o == null) {
                throw new IllegalStateException("task " + t + " is not assigned before optimisation");
            }
            counts[o]++;
        }
        int total = taskList.size();
        boolean balance = strategy == RackStrategy.BALANCE_SUBTOPOLOGY;
        int r = ctx.racks.size();
        // Classes (§ 6): within a subtopology group, tasks with the same start client and the
        // same (cost, tie) towards every rack are interchangeable; one node per class, in the
        // order of each class's first task.
        TreeMap<Integer, List<TaskClass>> subs = new TreeMap<>();
        Map<List<Long>, TaskClass> byKey = new HashMap<>();
        for (TaskId t : taskList) {
            int sub = balance ? t.subtopology() : -1;
            int start = owner.get(t);
            Long[] key = new Long[2 + 2 * r];
            key[0] = (long) sub;
            key[1] = (long) start;
            int k = 2;
            for (String rack : ctx.racks) {
                key[k++] = ctx.activeCost(t, rack, traffic);
                key[k++] = tie(ties, t, rack);
            }
            List<Long> keyList = List.of(key);
            TaskClass cls = byKey.get(keyList);
            if (cls == null) {
                cls = new TaskClass(start);
                byKey.put(keyList, cls);
                subs.computeIfAbsent(sub, x -> new ArrayList<>()).add(cls);
            }
            cls.tasks.add(t);
        }
        LexFlow net = new LexFlow(TaskInputException::new).primalDualFirst();
        for (List<TaskClass> classes : subs.values()) {
            for (TaskClass cls : classes) {
                cls.node = net.addNode();
            }
        }
        int[] clientNode = new int[n];
        for (int c = 0; c < n; c++) {
            clientNode[c] = counts[c] > 0 ? net.addNode() : -1;
        }
        int sink = net.addNode();
        for (List<TaskClass> classes : subs.values()) {
            for (TaskClass cls : classes) {
                net.setSupply(cls.node, cls.tasks.size());
            }
        }
        net.setSupply(sink, -total);
        for (int c = 0; c < n; c++) {
            if (clientNode[c] >= 0) {
                net.addArc(clientNode[c], sink, counts[c], 0, 0, 0);
            }
        }
        Map<Group, List<int[]>> fanout = new HashMap<>();
        for (Map.Entry<Integer, List<TaskClass>> se : subs.entrySet()) {
            int sub = se.getKey();
            List<TaskClass> classes = se.getValue();
            int members = 0;
            for (TaskClass cls : classes) {
                members += cls.tasks.size();
            }
            // per client: {entry node, cap}, or null when the client takes none of this sub
            int[][] entry = new int[n][];
            for (int c = 0; c < n; c++) {
                if (clientNode[c] < 0) {
                    continue;
                }
                if (balance) {
                    int cap = (int) Math.ceil((double) counts[c] * 1.0 / total * members);
                    if (cap > 0) {
                        int node = net.addNode();
                        net.addArc(node, clientNode[c], cap, 0, 0, 0);
                        entry[c] = new int[] {node, cap};
                    }
                } else {
                    entry[c] = new int[] {clientNode[c], counts[c]};
                }
            }
            for (String rack : ctx.racks) {
                int gnode = net.addNode();
                Group g = new Group(sub, rack);
                boolean any = false;
                for (int c = 0; c < n; c++) {
                    if (entry[c] != null && rack.equals(clients[c].rackOrEmpty())) {
                        int arc = net.addArc(gnode, entry[c][0], entry[c][1], 0, 0, 0);
                        fanout.computeIfAbsent(g, x -> new ArrayList<>()).add(new int[] {arc, c});
                        any = true;
                    }
                }
                if (!any) {
                    continue;
                }
                for (TaskClass cls : classes) {
                    TaskId t = cls.tasks.get(0);
                    long cost = ctx.activeCost(t, rack, traffic) + nonOverlap;
                    int arc = net.addArc(cls.node, gnode, cls.tasks.size(), cost, tie(ties, t, rack), 1);
                    cls.routes.add(new Route(arc, g));
                }
            }
            for (TaskClass cls : classes) {
                if (entry[cls.start] != null) {
                    TaskId t = cls.tasks.get(0);
                    String rack = clients[cls.start].rackOrEmpty();
                    cls.direct = net.addArc(cls.node, entry[cls.start][0], cls.tasks.size(),
                            ctx.activeCost(t, rack, traffic), tie(ties, t, rack), 0);
                }
            }
        }
        net.solveInTwoStages();
        // A class's tasks in task order: the first ones its start-client arc carries stay,
        // the next go to its rack groups in rack order, as many as each arc carries.
        Map<TaskId, Integer> newOwner = new TreeMap<>();
        TreeMap<Group, List<TaskId>> routed = new TreeMap<>((a, b) -> {
            int c = Integer.compare(a.sub(), b.sub());
            return c != 0 ? c : Lex.compareStrings(a.rack(), b.rack());
        });
        for (List<TaskClass> classes : subs.values()) {
            for (TaskClass cls : classes) {
                int next = 0;
                if (cls.direct >= 0) {
                    for (long f = net.flow(cls.direct); f > 0; f--) {
                        newOwner.put(cls.tasks.get(next++), cls.start);
                    }
                }
                for (Route route : cls.routes) {
                    List<TaskId> into = routed.computeIfAbsent(route.group(), x -> new ArrayList<>());
                    for (long f = net.flow(route.arc()); f > 0; f--) {
                        into.add(cls.tasks.get(next++));
                    }
                }
            }
        }
        for (Map.Entry<Group, List<TaskId>> e : routed.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            long[] quota = new long[n];
            for (int[] f : fanout.get(e.getKey())) {
                quota[f[1]] = net.flow(f[0]);
            }
            List<TaskId> pending = new ArrayList<>();
            List<TaskId> sorted = new ArrayList<>(e.getValue());
            sorted.sort(null);
            for (TaskId t : sorted) {
                int o = owner.get(t);
                if (quota[o] > 0) { // only reachable when non_overlap == 0
                    quota[o]--;
                    newOwner.put(t, o);
                } else {
                    pending.add(t);
                }
            }
            int k = 0;
            for (int c = 0; c < n && k < pending.size(); c++) {
                for (long q = 0; q < quota[c] && k < pending.size(); q++) {
                    newOwner.put(pending.get(k++), c);
                }
            }
        }
        if (newOwner.size() != total) {
            throw new IllegalStateException("rack-aware optimiser lost a task (flow decoding)");
        }
        long cost = 0;
        for (Map.Entry<TaskId, Integer> e : newOwner.entrySet()) {
            int c = e.getValue();
            int before = owner.get(e.getKey());
            cost += ctx.activeCost(e.getKey(), clients[c].rackOrEmpty(), traffic)
                    + (c == before ? 0 : nonOverlap);
            if (c != before) {
                clients[before].active.remove(e.getKey());
                clients[c].active.add(e.getKey());
            }
        }
        return cost;
    }

    private record Group(int sub, String rack) {
    }

    private record Route(int arc, Group group) {
    }

    /** Tasks that every arc prices alike: one subtopology group, one start client, one cost and tie row. */
    private static final class TaskClass {
        final int start;
        final List<TaskId> tasks = new ArrayList<>();
        final List<Route> routes = new ArrayList<>();
        int node;
        int direct = -1;

        TaskClass(int start) {
            this.start = start;
        }
    }

    private static long tie(Map<TaskId, SortedMap<String, Long>> ties, TaskId t, String rack) {
        if (ties == null) {
            return 0;
        }
        SortedMap<String, Long> m = ties.get(t);
        if (m == null) {
            return 0;
        }
        Long v = m.get(rack);
        return v == null ? 0 : v;
    }

    /**
     * The standby tie-break for stateful actives when standbys follow: per task and rack,
     * the most changelog weight any rack misses minus what this rack misses (&ge; 0), so an
     * active prefers the rack where its standby would be dearest.
     */
    static Map<TaskId, SortedMap<String, Long>> standbyTieBreak(RackContext ctx, List<TaskId> tasks) {
        Map<TaskId, SortedMap<String, Long>> out = new HashMap<>();
        for (TaskId t : tasks) {
            SortedMap<String, Long> misses = ctx.standbyMisses.get(t);
            if (misses != null && !misses.isEmpty()) {
                long top = Long.MIN_VALUE;
                for (long m : misses.values()) {
                    top = Math.max(top, m);
                }
                SortedMap<String, Long> row = new TreeMap<>(Lex.STRING);
                for (Map.Entry<String, Long> e : misses.entrySet()) {
                    row.put(e.getKey(), top - e.getValue());
                }
                out.put(t, row);
            }
        }
        return out;
    }
}
