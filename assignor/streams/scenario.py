"""Streams scenarios (DESIGN.md §4, ``"kind": "streams"``) to plans and comparison rows.

``plan_from_scenario`` and ``compare_scenario`` are what ``rackwise plan`` / ``rackwise
compare`` call for streams groups. A scenario's group carries ``topology``, ``clients`` and
``config`` (Kafka Streams' names); optional ``end_offsets`` ({changelog topic: [end offset
per partition]}) turn reported ``task_offset_sums`` into lags the way Kafka does.

Example::

    plan = plan_from_scenario(doc)                    # the scenario's own strategy
    rows = compare_scenario(doc)                      # none / min_traffic / balance_subtopology
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assignor.cluster import ClusterView
from assignor.errors import AssignorError
from assignor.streams.ha import HAResult, assign
from assignor.streams.model import (
    LATEST_OFFSET,
    OFFSET_UNKNOWN,
    STRATEGIES,
    UNKNOWN_OFFSET_SUM,
    AssignmentConfig,
    ClientInput,
    TaskId,
    TaskSet,
    Topology,
    build_tasks,
    compute_lags,
    end_offset_sum,
)
from assignor.streams.plan import build_plan, metrics
from assignor.streams.rack import rack_context
from assignor.streams.state import ClientState
from protocol.plan import AssignmentPlan

ASSIGNOR_NAME = "high-availability"


@dataclass(frozen=True)
class StreamsInputs:
    """Everything one streams plan is computed from, already validated."""

    group_id: str
    generation: int
    view: ClusterView
    tasks: TaskSet
    clients: tuple[ClientInput, ...]
    config: AssignmentConfig
    ignored_lags: tuple[str, ...] = ()


def run(inputs: StreamsInputs) -> HAResult:
    """Run the HA assignor (with the configured rack strategy) on validated inputs."""
    if not inputs.clients:
        raise AssignorError("a streams group needs at least one client")
    states = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
    if len(states) != len(inputs.clients):
        raise AssignorError(
            "two clients share a process_id; list each process once with its thread count"
        )
    ctx = rack_context(inputs.view, inputs.tasks, list(states.values()), inputs.config)
    return assign(states, inputs.tasks, inputs.config, ctx)


def _task_map(raw: Mapping[str, Any] | None, what: str) -> dict[str, int]:
    try:
        return {str(k): int(v) for k, v in (raw or {}).items()}
    except (AttributeError, TypeError, ValueError):
        raise AssignorError(f"{what} must map task ids to integers") from None


def _task_list(
    raw: Sequence[Any] | None, known: frozenset[TaskId] | set[TaskId]
) -> frozenset[TaskId]:
    return frozenset(t for t in (TaskId.parse(str(x)) for x in (raw or [])) if t in known)


def parse_inputs(doc: Mapping[str, Any], previous: AssignmentPlan | None = None) -> StreamsInputs:
    """Validate a streams scenario document into inputs (pure; raises AssignorError)."""
    if not isinstance(doc, Mapping):
        raise AssignorError("a scenario must be a JSON object")
    group = doc.get("group") or {}
    view = ClusterView.from_dict(doc.get("cluster") or {})
    topo_doc = group.get("topology", doc.get("topology"))
    if not isinstance(topo_doc, Mapping):
        raise AssignorError("a streams scenario needs a 'topology' with 'subtopologies'")
    tasks = build_tasks(Topology.from_dict(topo_doc), view)
    config = AssignmentConfig.from_dict(group.get("config", doc.get("config")) or {})
    ends: dict[TaskId, int] = {}
    end_offsets = group.get("end_offsets") or {}
    for task in sorted(tasks.stateful):
        offsets = []
        for tp in tasks.changelog[task]:
            per_topic = end_offsets.get(tp.topic) or []
            offsets.append(int(per_topic[tp.partition]) if tp.partition < len(per_topic) else 0)
        ends[task] = end_offset_sum(offsets)
    prev_members = {m.process_id or m.member_id: m for m in (previous.members if previous else [])}
    known = set(tasks.all)
    ignored: set[str] = set()
    clients = []
    raw_clients = group.get("clients")
    if not isinstance(raw_clients, list):
        raise AssignorError("a streams group lists its processes in 'clients'")
    for raw in raw_clients:
        if "process_id" not in raw:
            raise AssignorError("every streams client needs a process_id")
        pid = str(raw["process_id"])
        prior = prev_members.get(pid)
        prev_active = _task_list(raw.get("prev_active", prior.active_tasks if prior else []), known)
        prev_standby = _task_list(
            raw.get("prev_standby", [*prior.standby_tasks, *prior.warmup_tasks] if prior else []),
            known,
        )
        lags = _client_lags(raw, tasks, ends, prev_active, prev_standby, ignored)
        tags = {str(k): str(v) for k, v in (raw.get("client_tags") or {}).items()}
        for key in config.rack_aware_assignment_tags:
            if key not in tags:
                raise AssignorError(
                    f"client {pid} lacks tag {key!r} listed in rack_aware_assignment_tags"
                )
        clients.append(
            ClientInput(
                pid,
                int(raw.get("threads", 1)),
                raw.get("rack") or None,
                lags,
                tags,
                prev_active,
                prev_standby,
            )
        )
    generation = previous.generation + 1 if previous else int(group.get("generation", 1))
    return StreamsInputs(
        str(group.get("id", "streams")),
        generation,
        view,
        tasks,
        tuple(clients),
        config,
        tuple(sorted(ignored)),
    )


def _client_lags(
    raw: Mapping[str, Any],
    tasks: TaskSet,
    ends: Mapping[TaskId, int],
    prev_active: frozenset[TaskId],
    prev_standby: frozenset[TaskId],
    ignored: set[str],
) -> dict[TaskId, int]:
    offsets = _task_map(raw.get("task_offset_sums"), "task_offset_sums")
    given = _task_map(raw.get("task_lags"), "task_lags")
    parsed_offsets: dict[TaskId, int] = {}
    for key, value in offsets.items():
        task = TaskId.parse(key)
        if task in tasks.stateful:
            parsed_offsets[task] = value
        else:
            ignored.add(key)  # Kafka ignores offset sums of tasks it does not know
    if raw.get("task_offset_sums") is not None:
        return compute_lags(parsed_offsets, ends)
    lags: dict[TaskId, int] = {}
    for key, value in given.items():
        task = TaskId.parse(key)
        if task not in tasks.stateful:
            ignored.add(key)
            continue
        if value == OFFSET_UNKNOWN:
            continue  # as if not reported
        if value < 0 and value not in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
            raise AssignorError(
                f"lag {value} of task {key}: only -2 (running) and -3 (unknown) are sentinels"
            )
        lags[task] = value
    for task in sorted(tasks.stateful):
        if task not in lags:
            # Not reported: a running previous active is -2, a previous standby is taken as
            # caught up, anything else lags by the whole changelog (0 when it is empty).
            lags[task] = (
                LATEST_OFFSET if task in prev_active else 0 if task in prev_standby else ends[task]
            )
    return lags


def _with_strategy(inputs: StreamsInputs, assignor: str | None) -> StreamsInputs:
    if assignor is None or assignor == ASSIGNOR_NAME:
        return inputs
    strategy = assignor.removeprefix(ASSIGNOR_NAME + ":")
    if strategy not in STRATEGIES:
        raise AssignorError(
            f"streams assignor {assignor!r} unknown: use {ASSIGNOR_NAME} or one of {STRATEGIES}"
        )
    return replace(inputs, config=replace(inputs.config, rack_aware_assignment_strategy=strategy))


def plan_from_scenario(
    doc: dict[str, Any], *, assignor: str | None = None, previous: AssignmentPlan | None = None
) -> AssignmentPlan:
    """The AssignmentPlan for a streams scenario (``assignor`` may name a rack strategy)."""
    inputs = _with_strategy(parse_inputs(doc, previous), assignor)
    return build_plan(inputs, run(inputs), previous, ASSIGNOR_NAME)


def compare_scenario(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per rack strategy (none, min_traffic, balance_subtopology), same inputs."""
    base = parse_inputs(doc)
    rows = []
    for strategy in STRATEGIES:
        inputs = _with_strategy(base, strategy)
        result = run(inputs)
        plan = build_plan(inputs, result, None, ASSIGNOR_NAME)
        row: dict[str, Any] = {"assignor": ASSIGNOR_NAME, "strategy": strategy}
        row.update(metrics(inputs, plan, result))
        rows.append(row)
    return rows
