package dev.rackwise.tasks;

import dev.rackwise.core.LexFlow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;

/**
 * KIP-925's standby optimisation, solved globally (docs/streams-assignor.md § 4.2, § 6):
 * re-place the standbys keeping each client's standby count, never two copies of a task on
 * one client, never a standby beside its active and (tag-aware) every copy inside its tag
 * class, minimising changelog traffic plus {@code non_overlap_cost} per copy on a new client.
 *
 * <p>First an aggregated graph (classes of interchangeable task copies → (rack, class) group
 * → client, docs/streams-assignor.md § 6), dealt back to the tasks and split into distinct
 * clients per task (greedily, repaired by augmenting paths where it gets stuck);
 * only when no split exists, the exact task × client graph.
 *
 * <p>Example: a standby of 0_0 (changelog in az2) on x in az1 and one of 0_1 (changelog in
 * az1) on y in az2: swapping them saves 2 · traffic_cost for 2 · non_overlap_cost.
 */
final class StandbyOptimizer {
    private record Group(String rack, List<String> klass) {
    }

    private record Unit(TaskId task, List<String> klass) {
    }

    /** A class arc: to holder {@code target} (a client), or into group {@code target}. */
    private record ClassArc(int arc, int target, boolean toGroup) {
    }

    /** Units that every arc prices and caps alike (§ 6), with their arcs in creation order. */
    private static final class UnitClass {
        final List<Integer> holders;
        final List<Integer> groups;
        final Long[] caps;
        final List<TaskId> tasks = new ArrayList<>();
        final List<ClassArc> arcs = new ArrayList<>();

        UnitClass(List<Integer> holders, List<Integer> groups, Long[] caps) {
            this.holders = holders;
            this.groups = groups;
            this.caps = caps;
        }
    }

    private static final Comparator<Group> GROUP_ORDER = (a, b) -> {
        int c = Lex.compareStrings(a.rack(), b.rack());
        return c != 0 ? c : Lex.compareLists(a.klass(), b.klass());
    };

    private static final Comparator<Unit> UNIT_ORDER = (a, b) -> {
        int c = a.task().compareTo(b.task());
        return c != 0 ? c : Lex.compareLists(a.klass(), b.klass());
    };

    private final ClientState[] clients;
    private final RackContext ctx;
    private final long traffic;
    private final long nonOverlap;
    private final boolean tagAware;
    /** Each client's rack as an index into {@code ctx.racks} (every client has one here). */
    private final int[] rackOf;
    /** Per task, its cost per rack index, filled on first use ({@link #UNKNOWN}: not yet). */
    private final Map<TaskId, long[]> costs = new HashMap<>();
    private static final long UNKNOWN = Long.MIN_VALUE;

    private StandbyOptimizer(ClientState[] clients, RackContext ctx, long traffic,
                             long nonOverlap, boolean tagAware) {
        this.clients = clients;
        this.ctx = ctx;
        this.traffic = traffic;
        this.nonOverlap = nonOverlap;
        this.tagAware = tagAware;
        Map<String, Integer> index = new HashMap<>();
        for (int r = 0; r < ctx.racks.size(); r++) {
            index.put(ctx.racks.get(r), r);
        }
        rackOf = new int[clients.length];
        for (int c = 0; c < clients.length; c++) {
            rackOf[c] = index.getOrDefault(clients[c].rackOrEmpty(), -1);
        }
    }

    /** Re-places the standbys; returns the step's cost (traffic + non-overlap per new copy). */
    static long optimize(ClientState[] clients, RackContext ctx, long traffic, long nonOverlap,
                         boolean tagAware) {
        return new StandbyOptimizer(clients, ctx, traffic, nonOverlap, tagAware).run();
    }

    private Map<TaskId, List<Integer>> holders() {
        Map<TaskId, List<Integer>> out = new TreeMap<>();
        for (int c = 0; c < clients.length; c++) {
            for (TaskId t : clients[c].standby) {
                out.computeIfAbsent(t, k -> new ArrayList<>()).add(c);
            }
        }
        return out;
    }

    private long cost(TaskId t, int c) {
        return rackCost(t, rackOf[c], clients[c].rackOrEmpty());
    }

    /**
     * {@code ctx.standbyCost(t, rack, traffic)} for {@code rack = ctx.racks[r]}, computed once
     * per (task, rack): a pure function, so the memo changes nothing but the time (and a cost
     * that overflows still throws where it is first asked for, as before).
     */
    private long rackCost(TaskId t, int r, String rack) {
        if (r < 0) {
            return ctx.standbyCost(t, rack, traffic);
        }
        long[] row = costs.computeIfAbsent(t, k -> {
            long[] fresh = new long[ctx.racks.size()];
            java.util.Arrays.fill(fresh, UNKNOWN);
            return fresh;
        });
        if (row[r] == UNKNOWN) {
            row[r] = ctx.standbyCost(t, rack, traffic);
        }
        return row[r];
    }

    private long run() {
        Map<TaskId, List<Integer>> holders = holders();
        if (holders.isEmpty()) {
            return 0;
        }
        List<Set<TaskId>> start = new ArrayList<>(clients.length);
        for (ClientState c : clients) {
            start.add(new HashSet<>(c.standby));
        }
        if (tagAware) {
            // Kafka's own pairwise rounds first; the class-preserving global flow below can
            // then only lower the traffic further.
            pairwise();
            holders = holders();
        }
        Map<TaskId, Integer> activeOf = new HashMap<>();
        for (int c = 0; c < clients.length; c++) {
            for (TaskId t : clients[c].active) {
                activeOf.put(t, c);
            }
        }
        Map<TaskId, List<Integer>> placement = aggregated(holders, activeOf);
        if (placement == null) {
            placement = exact(holders, activeOf);
        }
        for (ClientState c : clients) {
            c.standby.clear();
        }
        long moved = 0;
        for (Map.Entry<TaskId, List<Integer>> e : placement.entrySet()) {
            for (int c : e.getValue()) {
                clients[c].standby.add(e.getKey());
                if (!start.get(c).contains(e.getKey())) {
                    moved++;
                }
            }
        }
        long total = nonOverlap * moved;
        for (int c = 0; c < clients.length; c++) {
            for (TaskId t : clients[c].standby) {
                total += cost(t, c);
            }
        }
        return total;
    }

    private int tagCount(List<Integer> holders, int extra) {
        Set<List<String>> kv = new HashSet<>();
        List<Integer> all = new ArrayList<>(holders);
        all.add(extra);
        for (int c : all) {
            clients[c].tags.forEach((k, v) -> kv.add(List.of(k, v)));
        }
        return kv.size();
    }

    /** Kafka's 4-argument tag predicate: a move must not lower the task's distinct tag count. */
    private List<TaskId> movable(int src, int dst) {
        List<TaskId> out = new ArrayList<>();
        for (TaskId t : clients[src].standby) {
            if (clients[dst].holds(t)) {
                continue;
            }
            List<Integer> others = new ArrayList<>();
            for (int p = 0; p < clients.length; p++) {
                if (p != src && p != dst && clients[p].holds(t)) {
                    others.add(p);
                }
            }
            if (tagCount(others, dst) >= tagCount(others, src)) {
                out.add(t);
            }
        }
        return out;
    }

    /** Tag-aware only: Kafka's pairwise swap rounds (at most 4), each pair solved exactly. */
    private void pairwise() {
        for (int round = 0; round < 4; round++) {
            boolean moved = false;
            for (int a = 0; a < clients.length; a++) {
                for (int b = a + 1; b < clients.length; b++) {
                    ClientState ca = clients[a];
                    ClientState cb = clients[b];
                    if (java.util.Objects.equals(ca.rack, cb.rack)) {
                        continue;
                    }
                    List<TaskId> m1 = movable(a, b);
                    List<TaskId> m2 = movable(b, a);
                    if (m1.isEmpty() || m2.isEmpty()) {
                        continue;
                    }
                    final int fa = a;
                    final int fb = b;
                    List<TaskId> pool = new ArrayList<>(m1);
                    pool.addAll(m2);
                    Map<TaskId, Long> diff = new HashMap<>();
                    for (TaskId t : pool) {
                        diff.put(t, pairCost(t, fa) - pairCost(t, fb));
                    }
                    pool.sort(Comparator.<TaskId>comparingLong(diff::get)
                            .thenComparing(t -> !ca.standby.contains(t))
                            .thenComparing(Comparator.naturalOrder()));
                    Set<TaskId> toA = new HashSet<>(pool.subList(0, m1.size()));
                    for (TaskId t : pool) {
                        ClientState want = toA.contains(t) ? ca : cb;
                        ClientState other = toA.contains(t) ? cb : ca;
                        if (!want.standby.contains(t)) {
                            other.standby.remove(t);
                            want.standby.add(t);
                            moved = true;
                        }
                    }
                }
            }
            if (!moved) {
                return;
            }
        }
    }

    private long pairCost(TaskId t, int c) {
        return cost(t, c) + (clients[c].standby.contains(t) ? 0 : nonOverlap);
    }

    private TreeMap<Unit, List<Integer>> units(Map<TaskId, List<Integer>> holders) {
        TreeMap<Unit, List<Integer>> out = new TreeMap<>(UNIT_ORDER);
        for (Map.Entry<TaskId, List<Integer>> e : holders.entrySet()) {
            for (int c : e.getValue()) {
                out.computeIfAbsent(new Unit(e.getKey(), StandbyPlacement.tagClass(clients[c], tagAware)),
                        k -> new ArrayList<>()).add(c);
            }
        }
        return out;
    }

    private Map<TaskId, List<Integer>> aggregated(Map<TaskId, List<Integer>> holders,
                                                  Map<TaskId, Integer> activeOf) {
        int n = clients.length;
        int[] counts = new int[n];
        long copies = 0;
        for (int c = 0; c < n; c++) {
            counts[c] = clients[c].standby.size();
            copies += counts[c];
        }
        TreeMap<Group, List<Integer>> groups = new TreeMap<>(GROUP_ORDER);
        for (int c = 0; c < n; c++) {
            if (counts[c] > 0) {
                groups.computeIfAbsent(new Group(clients[c].rackOrEmpty(),
                        StandbyPlacement.tagClass(clients[c], tagAware)), k -> new ArrayList<>()).add(c);
            }
        }
        LexFlow net = new LexFlow(TaskInputException::new).primalDualFirst();
        int sink = net.addNode();
        net.setSupply(sink, -copies);
        int[] cnode = new int[n];
        for (int c = 0; c < n; c++) {
            cnode[c] = counts[c] > 0 ? net.addNode() : -1;
        }
        for (int c = 0; c < n; c++) {
            if (cnode[c] >= 0) {
                net.addArc(cnode[c], sink, counts[c], 0, 0);
            }
        }
        // Groups by index in GROUP_ORDER (the TreeMap's order, so arcs are built as before).
        int groupCount = groups.size();
        int[] gnode = new int[groupCount];
        int[] gsize = new int[groupCount];
        int[] grack = new int[groupCount];
        String[] grackName = new String[groupCount];
        int[] groupOf = new int[n];
        java.util.Arrays.fill(groupOf, -1);
        List<List<int[]>> fan = new ArrayList<>(groupCount);
        Map<List<String>, List<Integer>> byClass = new HashMap<>();
        int gi = 0;
        for (Map.Entry<Group, List<Integer>> e : groups.entrySet()) {
            int g = net.addNode();
            gnode[gi] = g;
            gsize[gi] = e.getValue().size();
            grack[gi] = rackOf[e.getValue().get(0)];
            grackName[gi] = e.getKey().rack();
            List<int[]> arcs = new ArrayList<>();
            for (int c : e.getValue()) {
                arcs.add(new int[] {net.addArc(g, cnode[c], counts[c], 0, 0), c});
                groupOf[c] = gi;
            }
            fan.add(arcs);
            byClass.computeIfAbsent(e.getKey().klass(), k -> new ArrayList<>()).add(gi);
            gi++;
        }
        // A unit's capacity into a group is the group's clients that neither hold the task
        // nor run its active: the group's size less the distinct such clients counted in it.
        // Classes (§ 6): units of one tag class with the same holders in it, the same
        // capacity into every group of the class and the same cost towards every rack are
        // interchangeable; one node per class, in the order of each class's first unit.
        int[] heldIn = new int[groupCount];
        int[] stamp = new int[n];
        int round = 0;
        Map<List<Object>, UnitClass> byKey = new HashMap<>();
        List<UnitClass> classes = new ArrayList<>();
        for (Map.Entry<Unit, List<Integer>> ue : units(holders).entrySet()) {
            TaskId task = ue.getKey().task();
            round++;
            java.util.Arrays.fill(heldIn, 0);
            for (int c : holders.get(task)) {
                if (stamp[c] != round) {
                    stamp[c] = round;
                    if (groupOf[c] >= 0) {
                        heldIn[groupOf[c]]++;
                    }
                }
            }
            Integer act = activeOf.get(task);
            if (act != null && stamp[act] != round && groupOf[act] >= 0) {
                heldIn[groupOf[act]]++;
            }
            List<Integer> targets = byClass.getOrDefault(ue.getKey().klass(), List.of());
            Long[] caps = new Long[targets.size()];
            for (int i = 0; i < caps.length; i++) {
                caps[i] = (long) (gsize[targets.get(i)] - heldIn[targets.get(i)]);
            }
            Long[] row = new Long[ctx.racks.size()];
            for (int r = 0; r < row.length; r++) {
                row[r] = rackCost(task, r, ctx.racks.get(r));
            }
            List<Object> key = List.of(ue.getKey().klass(), ue.getValue(), List.of(caps), List.of(row));
            UnitClass cls = byKey.get(key);
            if (cls == null) {
                cls = new UnitClass(ue.getValue(), targets, caps);
                byKey.put(key, cls);
                classes.add(cls);
            }
            cls.tasks.add(task);
        }
        for (UnitClass cls : classes) {
            TaskId task = cls.tasks.get(0);
            long size = cls.tasks.size();
            int unit = net.addNode();
            net.setSupply(unit, size * cls.holders.size());
            for (int c : cls.holders) {
                cls.arcs.add(new ClassArc(net.addArc(unit, cnode[c], size, cost(task, c), 0), c, false));
            }
            for (int i = 0; i < cls.groups.size(); i++) {
                int g = cls.groups.get(i);
                if (cls.caps[i] > 0) {
                    long cost = rackCost(task, grack[g], grackName[g]) + nonOverlap;
                    cls.arcs.add(new ClassArc(net.addArc(unit, gnode[g], size * cls.caps[i], cost, 1), g, true));
                }
            }
        }
        net.solveInTwoStages();
        // A class's units, in its arc order, are dealt to its tasks in turn (task order,
        // starting over after the last): no task gets more than an arc allows it.
        Map<TaskId, List<Integer>> placement = new TreeMap<>();
        List<Map<TaskId, Long>> routed = new ArrayList<>(groupCount);
        for (int g = 0; g < groupCount; g++) {
            routed.add(new LinkedHashMap<>());
        }
        for (UnitClass cls : classes) {
            int turn = 0;
            for (ClassArc arc : cls.arcs) {
                for (long f = net.flow(arc.arc()); f > 0; f--) {
                    TaskId task = cls.tasks.get(turn++ % cls.tasks.size());
                    if (arc.toGroup()) {
                        routed.get(arc.target()).merge(task, 1L, Long::sum);
                    } else {
                        placement.computeIfAbsent(task, k -> new ArrayList<>()).add(arc.target());
                    }
                }
            }
        }
        List<List<Object[]>> demand = new ArrayList<>(groupCount);
        for (int g = 0; g < groupCount; g++) {
            List<Object[]> list = new ArrayList<>();
            routed.get(g).forEach((t, units) -> list.add(new Object[] {t, units}));
            demand.add(list);
        }
        for (int g = 0; g < groupCount; g++) { // GROUP_ORDER, as the TreeMap was
            if (demand.get(g).isEmpty()) {
                continue;
            }
            Map<Integer, Long> quota = new LinkedHashMap<>();
            for (int[] f : fan.get(g)) {
                quota.put(f[1], net.flow(f[0]));
            }
            if (!split(demand.get(g), quota, placement, activeOf)) {
                return null;
            }
        }
        return placement;
    }

    /**
     * Gives each task its copies on distinct clients of one group: tasks by (most copies,
     * task), each copy to the client with the most quota left (then client order) that holds
     * no copy of the task and not its active. Where none is left, an augmenting path
     * ({@link #repair}) makes room; false only when no split exists.
     */
    private boolean split(List<Object[]> demand, Map<Integer, Long> quota,
                          Map<TaskId, List<Integer>> placement, Map<TaskId, Integer> activeOf) {
        Map<Integer, Long> left = new LinkedHashMap<>(quota);
        Map<Integer, List<TaskId>> given = new HashMap<>();
        for (int c : quota.keySet()) {
            given.put(c, new ArrayList<>());
        }
        // entries: {-quota, rank (= client index)}
        PriorityQueue<long[]> heap = quotaHeap(left);
        List<Object[]> sorted = new ArrayList<>(demand);
        sorted.sort((a, b) -> {
            int c = Long.compare((Long) b[1], (Long) a[1]);
            return c != 0 ? c : ((TaskId) a[0]).compareTo((TaskId) b[0]);
        });
        for (Object[] d : sorted) {
            TaskId task = (TaskId) d[0];
            long units = (Long) d[1];
            Set<Integer> banned = new HashSet<>(placement.getOrDefault(task, List.of()));
            Integer act = activeOf.get(task);
            if (act != null) {
                banned.add(act);
            }
            List<long[]> taken = new ArrayList<>();
            List<long[]> skipped = new ArrayList<>();
            while (taken.size() < units && !heap.isEmpty()) {
                long[] item = heap.poll();
                (banned.contains((int) item[1]) ? skipped : taken).add(item);
            }
            for (long[] item : taken) {
                int c = (int) item[1];
                placement.computeIfAbsent(task, k -> new ArrayList<>()).add(c);
                given.get(c).add(task);
                left.merge(c, -1L, Long::sum);
                if (item[0] + 1 < 0) {
                    skipped.add(new long[] {item[0] + 1, item[1]});
                }
            }
            heap.addAll(skipped);
            if (taken.size() < units) {
                List<Integer> members = new ArrayList<>(quota.keySet());
                for (long k = taken.size(); k < units; k++) {
                    if (!repair(task, members, left, given, placement, activeOf)) {
                        return false;
                    }
                }
                heap = quotaHeap(left);
            }
        }
        return true;
    }

    private static PriorityQueue<long[]> quotaHeap(Map<Integer, Long> left) {
        PriorityQueue<long[]> heap = new PriorityQueue<>((a, b) -> {
            int c = Long.compare(a[0], b[0]);
            return c != 0 ? c : Long.compare(a[1], b[1]);
        });
        left.forEach((c, q) -> {
            if (q > 0) {
                heap.add(new long[] {-q, c});
            }
        });
        return heap;
    }

    private static boolean mayTake(TaskId task, int c, Map<TaskId, List<Integer>> placement,
                                   Map<TaskId, Integer> activeOf) {
        Integer act = activeOf.get(task);
        return (act == null || act != c) && !placement.getOrDefault(task, List.of()).contains(c);
    }

    /**
     * One more copy of {@code task} in the group, by the shortest augmenting path (Kuhn's):
     * breadth first from the task over the group's clients (client order) that may take it;
     * from a reached client, each task the split gave it (in the order given) may move to an
     * unreached client that may take that task (client order). The first reached client with
     * quota left ends the search; every task on the path moves one step and {@code task}
     * takes the first client. A copy routed to a group costs the same on any of its clients,
     * so the repair keeps the flow's cost. False when no path exists (then no split exists).
     */
    private static boolean repair(TaskId task, List<Integer> members, Map<Integer, Long> left,
                                  Map<Integer, List<TaskId>> given,
                                  Map<TaskId, List<Integer>> placement,
                                  Map<TaskId, Integer> activeOf) {
        Map<Integer, Integer> parentClient = new HashMap<>();
        Map<Integer, TaskId> parentTask = new HashMap<>();
        List<Integer> queue = new ArrayList<>();
        for (int c : members) {
            if (mayTake(task, c, placement, activeOf)) {
                parentClient.put(c, -1);
                queue.add(c);
            }
        }
        int end = -1;
        for (int head = 0; head < queue.size() && end < 0; head++) {
            int here = queue.get(head);
            if (left.get(here) > 0) {
                end = here;
                break;
            }
            for (TaskId moved : given.get(here)) {
                for (int c : members) {
                    if (!parentClient.containsKey(c) && mayTake(moved, c, placement, activeOf)) {
                        parentClient.put(c, here);
                        parentTask.put(c, moved);
                        queue.add(c);
                    }
                }
            }
        }
        if (end < 0) {
            return false;
        }
        left.merge(end, -1L, Long::sum);
        int node = end;
        while (parentClient.get(node) >= 0) {
            int src = parentClient.get(node);
            TaskId moved = parentTask.get(node);
            given.get(src).remove(moved);
            given.get(node).add(moved);
            List<Integer> copies = placement.get(moved);
            copies.set(copies.indexOf(src), node);
            node = src;
        }
        given.get(node).add(task);
        placement.computeIfAbsent(task, k -> new ArrayList<>()).add(node);
        return true;
    }

    private Map<TaskId, List<Integer>> exact(Map<TaskId, List<Integer>> holders,
                                             Map<TaskId, Integer> activeOf) {
        int n = clients.length;
        int[] counts = new int[n];
        long copies = 0;
        for (int c = 0; c < n; c++) {
            counts[c] = clients[c].standby.size();
            copies += counts[c];
        }
        LexFlow net = new LexFlow(TaskInputException::new).primalDualFirst();
        int sink = net.addNode();
        net.setSupply(sink, -copies);
        int[] cnode = new int[n];
        for (int c = 0; c < n; c++) {
            cnode[c] = counts[c] > 0 ? net.addNode() : -1;
        }
        Map<List<String>, List<Integer>> members = new HashMap<>();
        for (int c = 0; c < n; c++) {
            if (cnode[c] >= 0) {
                net.addArc(cnode[c], sink, counts[c], 0, 0);
                members.computeIfAbsent(StandbyPlacement.tagClass(clients[c], tagAware),
                        k -> new ArrayList<>()).add(c);
            }
        }
        record Arc(int arc, TaskId task, int client) {
        }
        List<Arc> arcs = new ArrayList<>();
        // mark[c]: HELD when c holds a copy of the task, MINE when it holds this unit's copy.
        int[] mark = new int[n];
        int[] markRound = new int[n];
        int round = 0;
        final int held = 1;
        final int mine = 2;
        for (Map.Entry<Unit, List<Integer>> ue : units(holders).entrySet()) {
            TaskId task = ue.getKey().task();
            int unit = net.addNode();
            net.setSupply(unit, ue.getValue().size());
            round++;
            for (int c : holders.get(task)) {
                markRound[c] = round;
                mark[c] = held;
            }
            for (int c : ue.getValue()) {
                mark[c] = mine;
            }
            Integer act = activeOf.get(task);
            int a = act == null ? -1 : act;
            for (int c : members.getOrDefault(ue.getKey().klass(), List.of())) {
                int m = markRound[c] == round ? mark[c] : 0;
                if (c == a || m == held) {
                    continue; // its active, or a copy of another unit of the task
                }
                boolean stay = m == mine;
                long base = cost(task, c) + (stay ? 0 : nonOverlap);
                arcs.add(new Arc(net.addArc(unit, cnode[c], 1, base, stay ? 0 : 1), task, c));
            }
        }
        net.solveInTwoStages();
        Map<TaskId, List<Integer>> placement = new TreeMap<>();
        for (Arc a : arcs) {
            if (net.flow(a.arc()) > 0) {
                placement.computeIfAbsent(a.task(), k -> new ArrayList<>()).add(a.client());
            }
        }
        return placement;
    }
}
