package dev.rackwise.tasks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * Kafka's {@code HighAvailabilityTaskAssignor} step for step, with KIP-925 rack awareness
 * (docs/streams-assignor.md § 4): stateful actives round robin then balanced and optimised;
 * standbys placed, balanced and optimised; active then standby movements with warm-ups;
 * stateless actives by active load, optimised with costs 1/0. A probing follow-up is needed
 * when any movement was.
 */
final class HighAvailability {
    private HighAvailability() {
    }

    static TaskPlan run(TaskProblem p) {
        ClientState[] clients = States.of(p);
        TaskConfig config = p.config();
        RackContext ctx = RackContext.of(p, clients);
        List<TaskId> stateful = new ArrayList<>();
        List<TaskId> stateless = new ArrayList<>();
        for (TaskSpec t : p.tasks().values()) {
            (t.stateful() ? stateful : stateless).add(t.id());
        }
        long traffic = config.effectiveTrafficCost();
        long nonOverlap = config.effectiveNonOverlapCost();
        RackStrategy strategy = config.rackAwareStrategy();
        OptionalLong activeCost = OptionalLong.empty();
        OptionalLong standbyCost = OptionalLong.empty();
        OptionalLong statelessCost = OptionalLong.empty();
        int n = clients.length;

        // 1. stateful actives: round robin (ignores capacity and lags), then balance.
        for (int i = 0; i < stateful.size(); i++) {
            clients[i % n].active.add(stateful.get(i));
        }
        balance(clients, false, (s, d) -> true);
        if (ctx.enabled) {
            Map<TaskId, SortedMap<String, Long>> ties = config.numStandbyReplicas() > 0
                    ? ActiveOptimizer.standbyTieBreak(ctx, stateful) : null;
            activeCost = OptionalLong.of(ActiveOptimizer.optimize(clients, stateful, ctx,
                    strategy, traffic, nonOverlap, ties));
        }

        // 2. standbys.
        boolean tagAware = !config.rackAwareTags().isEmpty();
        if (config.numStandbyReplicas() > 0) {
            if (tagAware) {
                StandbyPlacement.assignTagAware(clients, stateful, config);
                balance(clients, true, StandbyPlacement::tagsAllowBalanceMove);
            } else {
                StandbyPlacement.assignDefault(clients, stateful, config.numStandbyReplicas());
                balance(clients, true, (s, d) -> true);
            }
            if (ctx.enabled) {
                standbyCost = OptionalLong.of(StandbyOptimizer.optimize(clients, ctx, traffic,
                        nonOverlap, tagAware));
            }
        }

        // 3. caught-up clients and movements (one shared warm-up budget).
        Movements moves = new Movements(clients, stateful, config.acceptableRecoveryLag(),
                config.maxWarmupReplicas());
        moves.assignActiveMovements();
        List<Map.Entry<Integer, TaskId>> kept = moves.assignStandbyMovements();
        for (Map.Entry<Integer, TaskId> e : kept) {
            moves.warmups.computeIfAbsent(e.getKey(), k -> new TreeSet<>()).add(e.getValue());
        }

        // 4. stateless actives: least active load per thread, not sticky; costs fixed at 1/0.
        PrioritySet pset = new PrioritySet(clients, ClientState::activeLoad, (c, t) -> true);
        for (int c = 0; c < n; c++) {
            pset.offer(c);
        }
        for (TaskId t : stateless) {
            int chosen = pset.poll(t);
            clients[chosen].active.add(t);
            pset.offer(chosen);
        }
        if (ctx.enabled && !stateless.isEmpty()) {
            statelessCost = OptionalLong.of(ActiveOptimizer.optimize(clients, stateless, ctx,
                    strategy, TaskConfig.STATELESS_TRAFFIC_COST,
                    TaskConfig.STATELESS_NON_OVERLAP_COST, null));
        }

        SortedMap<String, ClientAssignment> out = new TreeMap<>();
        for (int c = 0; c < n; c++) {
            TreeSet<TaskId> warm = moves.warmups.getOrDefault(c, new TreeSet<>());
            List<TaskId> standby = new ArrayList<>();
            List<TaskId> warmup = new ArrayList<>();
            for (TaskId t : clients[c].standby) {
                (warm.contains(t) ? warmup : standby).add(t);
            }
            out.put(clients[c].processId, new ClientAssignment(clients[c].processId,
                    new ArrayList<>(clients[c].active), standby, warmup));
        }
        boolean followup = moves.activeMoves + moves.standbyMoves > 0;
        return new TaskPlan(out, followup, ctx.enabled, ctx.reason, activeCost, standbyCost,
                statelessCost);
    }

    /** Kafka's {@code balanceTasksOverThreads}: move while a move does not invert the imbalance. */
    private static void balance(ClientState[] clients, boolean standbys,
                                BiPredicate<ClientState, ClientState> allowed) {
        boolean keep = true;
        while (keep) {
            keep = false;
            for (ClientState src : clients) {
                for (ClientState dst : clients) {
                    if (dst == src || !shouldMove(src, dst)) {
                        continue;
                    }
                    TreeSet<TaskId> pool = standbys ? src.standby : src.active;
                    for (TaskId t : new ArrayList<>(pool)) {
                        if (!shouldMove(src, dst)) {
                            break;
                        }
                        if (!dst.holds(t) && allowed.test(src, dst)) {
                            pool.remove(t);
                            (standbys ? dst.standby : dst.active).add(t);
                            keep = true;
                        }
                    }
                }
            }
        }
    }

    private static boolean shouldMove(ClientState src, ClientState dst) {
        double skew = src.assignedLoad() - dst.assignedLoad();
        if (skew <= 0) {
            return false;
        }
        double proposed = (src.assignedCount() - 1.0) / src.capacity
                - (dst.assignedCount() + 1.0) / dst.capacity;
        return proposed >= 0 && proposed < skew;
    }
}
