"""The KIP-441 HighAvailabilityTaskAssignor, step for step, with KIP-925 rack awareness.

Steps (Kafka's order): stateful actives round-robin then balanced per thread, rack-optimized;
standbys (default or KIP-708 tag-aware), balanced, rack-optimized; caught-up sets; active
movements then standby movements (warm-ups within ``max_warmup_replicas``); stateless
actives by active load, rack-optimized with costs 1/0. A probing rebalance follows when any
movement was needed.

Example: 2 clients x 1 thread, 4 stateful tasks, fresh state everywhere: round robin gives
0_0,0_2 to the first and 0_1,0_3 to the second; nothing moves, no follow-up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from assignor.streams import movement, standby
from assignor.streams.model import (
    STATELESS_NON_OVERLAP_COST,
    STATELESS_TRAFFIC_COST,
    AssignmentConfig,
    TaskSet,
)
from assignor.streams.rack import RackContext, optimize_active, standby_tie_break
from assignor.streams.rackstandby import optimize_standby
from assignor.streams.state import ClientState, PrioritySet
from protocol.streams import TaskId


@dataclass
class HAResult:
    """The final client states plus what the run decided along the way."""

    clients: dict[str, ClientState]
    order: list[str]
    warmups: dict[str, set[TaskId]]
    probing_needed: bool
    active_moves: int
    standby_moves: int
    rack_enabled: bool
    rack_reason: str
    step_costs: dict[str, int] = field(default_factory=dict)


def _balance(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    standbys: bool,
    allowed: Callable[[ClientState, ClientState], bool],
) -> None:
    """``balanceTasksOverThreads``: move while a move does not invert the imbalance."""
    keep = True
    while keep:
        keep = False
        for src_pid in order:
            src = clients[src_pid]
            for dst_pid in order:
                if dst_pid == src_pid:
                    continue
                dst = clients[dst_pid]
                if not _should_move(src, dst):
                    continue
                pool = src.standby if standbys else src.active
                for task in sorted(pool):
                    if not _should_move(src, dst):
                        break
                    if not dst.holds(task) and allowed(src, dst):
                        pool.discard(task)
                        (dst.standby if standbys else dst.active).add(task)
                        keep = True


def _should_move(src: ClientState, dst: ClientState) -> bool:
    skew = src.assigned_load() - dst.assigned_load()
    if skew <= 0:
        return False
    proposed = (src.assigned_count() - 1.0) / src.capacity - (
        dst.assigned_count() + 1.0
    ) / dst.capacity
    return proposed >= 0 and proposed < skew


def place_standbys(
    clients: Mapping[str, ClientState],
    order: Sequence[str],
    stateful: Sequence[TaskId],
    config: AssignmentConfig,
) -> None:
    """Kafka's standby placement before rack optimisation: default or KIP-708 tag-aware,
    then ``balanceTasksOverThreads`` (the start the standby optimiser's non-overlap cost
    protects). Needs the stateful actives in place and no standbys yet."""
    if config.rack_aware_assignment_tags:
        standby.assign_tag_aware(clients, stateful, config)
        allowed: Callable[[ClientState, ClientState], bool] = standby.tags_allow_balance_move
    else:
        standby.assign_default(clients, stateful, config.num_standby_replicas)
        allowed = _always
    _balance(clients, order, standbys=True, allowed=allowed)


def assign(
    clients: dict[str, ClientState], tasks: TaskSet, config: AssignmentConfig, ctx: RackContext
) -> HAResult:
    """Run the HA assignor on fresh client states (each with lags for every stateful task)."""
    order = sorted(clients, key=lambda p: clients[p].key)
    stateful = sorted(tasks.stateful)
    strategy = config.rack_aware_assignment_strategy
    costs: dict[str, int] = {}
    traffic, non_overlap = config.traffic_cost, config.non_overlap_cost

    # 2.1 stateful actives: round robin (ignores capacity and lags), then balance.
    for index, task in enumerate(stateful):
        clients[order[index % len(order)]].assign_active(task)
    _balance(clients, order, standbys=False, allowed=lambda s, d: True)
    if ctx.enabled:
        ties = standby_tie_break(ctx, stateful) if config.num_standby_replicas > 0 else None
        costs["stateful_active"] = optimize_active(
            clients, order, stateful, ctx, strategy, traffic, non_overlap, ties
        )

    # 2.2 standbys.
    tag_aware = bool(config.rack_aware_assignment_tags)
    if config.num_standby_replicas > 0:
        place_standbys(clients, order, stateful, config)
        if ctx.enabled:
            costs["standby"] = optimize_standby(
                clients, order, ctx, traffic, non_overlap, tag_aware
            )

    # 2.3-2.5 caught-up clients and movements (shared warm-up budget).
    caught = movement.caught_up_clients(clients, stateful, config.acceptable_recovery_lag)
    by_lag = movement.clients_by_lag(clients, stateful)
    moves = movement.Movements(remaining_warmups=config.max_warmup_replicas)
    movement.assign_active_movements(clients, order, caught, by_lag, moves)
    kept = movement.assign_standby_movements(clients, order, caught, by_lag, moves)
    for pid, task in sorted(kept):
        moves.warmups.setdefault(pid, set()).add(task)

    # 2.6 stateless actives: least active load per thread, not sticky; costs fixed at 1/0.
    stateless = sorted(set(tasks.all) - tasks.stateful)
    pset = PrioritySet(clients, ClientState.active_load, lambda c, t: True)
    pset.offer_all(order)
    for task in stateless:
        chosen = pset.poll(task)
        assert chosen is not None
        clients[chosen].assign_active(task)
        pset.offer(chosen)
    if ctx.enabled and stateless:
        costs["stateless_active"] = optimize_active(
            clients,
            order,
            stateless,
            ctx,
            strategy,
            STATELESS_TRAFFIC_COST,
            STATELESS_NON_OVERLAP_COST,
        )

    return HAResult(
        clients,
        order,
        moves.warmups,
        moves.active_moves + moves.standby_moves > 0,
        moves.active_moves,
        moves.standby_moves,
        ctx.enabled,
        ctx.reason,
        costs,
    )


def _always(source: ClientState, destination: ClientState) -> bool:
    return True
