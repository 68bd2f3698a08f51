"""A typed Streams application (assignor.api.StreamsApp) to validated inputs and a plan.

Lags are what Kafka Streams computes from the same inputs (``ClientState.computeTaskLags``):
each reported offset sum against the sum of the task's changelog end offsets; a client that
reports lags directly (KIP-924) is taken at its word. Previous active and standby tasks come
from the client when it says, else from the previous plan (its warm-ups count as standbys,
as they were copies of the state).

Example::

    inputs = build_inputs(app, previous=None, generation=1)
    plan = plan_streams(app, None, 1, "initial")
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.streams.ha import HAResult, assign
from assignor.streams.model import (
    LATEST_OFFSET,
    OFFSET_UNKNOWN,
    STRATEGIES,
    UNKNOWN_OFFSET_SUM,
    AssignmentConfig,
    ClientInput,
    TaskSet,
    build_tasks,
    compute_lags,
    end_offset_sum,
)
from assignor.streams.plan import build_plan
from assignor.streams.rack import rack_context
from assignor.streams.state import ClientState
from protocol.plan import AssignmentPlan, PlanReason
from protocol.streams import TaskId

if TYPE_CHECKING:
    from assignor.api import StreamsApp, StreamsClient

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
    # Optional integer weight per partition (docs/streams-assignor.md § 2); 1 when absent.
    weights: Mapping[TopicPartition, int] = field(default_factory=dict)


def run(inputs: StreamsInputs) -> HAResult:
    """Run the HA assignor (with the configured rack strategy) on validated inputs."""
    if not inputs.clients:
        raise AssignorError("a streams group needs at least one client")
    states = {c.process_id: ClientState.from_input(c, c.lags) for c in inputs.clients}
    if len(states) != len(inputs.clients):
        raise AssignorError(
            "two clients share a process_id; list each process once with its thread count"
        )
    ctx = rack_context(
        inputs.view, inputs.tasks, list(states.values()), inputs.config, inputs.weights
    )
    return assign(states, inputs.tasks, inputs.config, ctx)


def with_strategy(config: AssignmentConfig, assignor: str | None) -> AssignmentConfig:
    """``high-availability`` keeps the configured rack strategy; ``high-availability:<s>``
    (or a bare strategy name) overrides it."""
    if assignor is None or assignor == ASSIGNOR_NAME:
        return config
    strategy = assignor.removeprefix(ASSIGNOR_NAME + ":")
    if strategy not in STRATEGIES:
        raise AssignorError(
            f"streams assignor {assignor!r} unknown: use {ASSIGNOR_NAME} or one of {STRATEGIES}"
        )
    return replace(config, rack_aware_assignment_strategy=strategy)


def build_inputs(
    app: StreamsApp, previous: AssignmentPlan | None, generation: int
) -> StreamsInputs:
    """Validate a StreamsApp into inputs (pure; raises AssignorError)."""
    tasks = build_tasks(app.topology, app.cluster)
    config = with_strategy(app.config, app.assignor)
    ends = {
        task: end_offset_sum([app.end_offsets.get(tp, 0) for tp in tasks.changelog[task]])
        for task in sorted(tasks.stateful)
    }
    prev_members = {m.process_id or m.member_id: m for m in (previous.members if previous else [])}
    known = set(tasks.all)
    ignored: set[str] = set()
    clients = []
    for client in app.clients:
        prior = prev_members.get(client.process_id)
        if client.prev_active is not None:
            prev_active = frozenset(t for t in client.prev_active if t in known)
        else:
            prev_active = _tasks(prior.active_tasks if prior else [], known)
        if client.prev_standby is not None:
            prev_standby = frozenset(t for t in client.prev_standby if t in known)
        else:
            prev_standby = _tasks(
                [*prior.standby_tasks, *prior.warmup_tasks] if prior else [], known
            )
        lags = _lags(client, tasks, ends, prev_active, prev_standby, ignored)
        for key in config.rack_aware_assignment_tags:
            if key not in client.client_tags:
                raise AssignorError(
                    f"client {client.process_id} lacks tag {key!r} listed in "
                    "rack_aware_assignment_tags"
                )
        clients.append(
            ClientInput(
                client.process_id,
                client.threads,
                client.rack,
                lags,
                dict(client.client_tags),
                prev_active,
                prev_standby,
            )
        )
    return StreamsInputs(
        app.group_id, generation, app.cluster, tasks, tuple(clients), config, tuple(sorted(ignored))
    )


def plan_streams(
    app: StreamsApp, previous: AssignmentPlan | None, generation: int, reason: PlanReason
) -> AssignmentPlan:
    inputs = build_inputs(app, previous, generation)
    return build_plan(inputs, run(inputs), reason, ASSIGNOR_NAME)


def _tasks(raw: list[str], known: set[TaskId]) -> frozenset[TaskId]:
    return frozenset(t for t in (TaskId.parse(x) for x in raw) if t in known)


def _lags(
    client: StreamsClient,
    tasks: TaskSet,
    ends: Mapping[TaskId, int],
    prev_active: frozenset[TaskId],
    prev_standby: frozenset[TaskId],
    ignored: set[str],
) -> dict[TaskId, int]:
    if client.task_offset_sums is not None:
        offsets: dict[TaskId, int] = {}
        for task, value in client.task_offset_sums.items():
            if task in tasks.stateful:
                offsets[task] = value
            else:
                ignored.add(str(task))  # Kafka ignores offset sums of tasks it does not know
        return compute_lags(offsets, ends)
    lags: dict[TaskId, int] = {}
    for task, value in (client.task_lags or {}).items():
        if task not in tasks.stateful:
            ignored.add(str(task))
            continue
        if value == OFFSET_UNKNOWN:
            continue  # as if not reported
        if value < 0 and value not in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
            raise AssignorError(
                f"lag {value} of task {task}: only -2 (running) and -3 (unknown) are sentinels"
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
