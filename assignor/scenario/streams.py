"""Streams scenarios (``"kind": "streams"``) to the seam's StreamsApp, plans and comparison rows.

An adapter for the offline CLI: ``rackwise plan`` / ``rackwise compare`` read a scenario's
``topology``, ``clients`` and ``config`` (Kafka Streams' names) into an assignor.api.StreamsApp;
optional ``end_offsets`` ({changelog topic: [end offset per partition]}) turn reported
``task_offset_sums`` into lags the way Kafka does. Planning is assignor.api.plan.

Example::

    plan = plan_from_scenario(doc)                    # the scenario's own strategy
    rows = compare_scenario(doc)                      # none / min_traffic / balance_subtopology
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from assignor.api import Round, StreamsApp, StreamsClient, plan
from assignor.cluster import ClusterView, TopicPartition
from assignor.errors import AssignorError
from assignor.streams.model import STRATEGIES, AssignmentConfig, StreamsInputs, Topology
from assignor.streams.plan import build_plan, metrics
from assignor.streams.run import ASSIGNOR_NAME, run
from assignor.streamsapp import build_inputs
from protocol.errors import ProtocolError
from protocol.plan import AssignmentPlan
from protocol.streams import TaskId


def _task_map(raw: Mapping[str, Any] | None, what: str) -> dict[TaskId, int]:
    try:
        return {TaskId.parse(str(k)): int(v) for k, v in (raw or {}).items()}
    except ProtocolError as exc:
        raise AssignorError(str(exc)) from None
    except (AttributeError, TypeError, ValueError):
        raise AssignorError(f"{what} must map task ids to integers") from None


def _task_list(raw: Sequence[Any] | None) -> frozenset[TaskId] | None:
    if raw is None:
        return None
    try:
        return frozenset(TaskId.parse(str(x)) for x in raw)
    except ProtocolError as exc:
        raise AssignorError(str(exc)) from None


def load_app(doc: Mapping[str, Any], assignor: str | None = None) -> StreamsApp:
    """Read a streams scenario document into a StreamsApp (pure; raises AssignorError)."""
    if not isinstance(doc, Mapping):
        raise AssignorError("a scenario must be a JSON object")
    group = doc.get("group") or {}
    view = ClusterView.from_dict(doc.get("cluster") or {})
    topo_doc = group.get("topology", doc.get("topology"))
    if not isinstance(topo_doc, Mapping):
        raise AssignorError("a streams scenario needs a 'topology' with 'subtopologies'")
    config = AssignmentConfig.from_dict(group.get("config", doc.get("config")) or {})
    ends: dict[TopicPartition, int] = {}
    try:
        for topic, offsets in (group.get("end_offsets") or {}).items():
            for index, offset in enumerate(offsets):
                ends[TopicPartition(str(topic), index)] = int(offset)
    except (AttributeError, TypeError, ValueError):
        raise AssignorError("end_offsets must map changelog topics to lists of offsets") from None
    raw_clients = group.get("clients")
    if not isinstance(raw_clients, list):
        raise AssignorError("a streams group lists its processes in 'clients'")
    clients = []
    for raw in raw_clients:
        if "process_id" not in raw:
            raise AssignorError("every streams client needs a process_id")
        clients.append(
            StreamsClient(
                process_id=str(raw["process_id"]),
                rack=raw.get("rack") or None,
                threads=int(raw.get("threads", 1)),
                client_tags={str(k): str(v) for k, v in (raw.get("client_tags") or {}).items()},
                task_offset_sums=(
                    None
                    if raw.get("task_offset_sums") is None
                    else _task_map(raw.get("task_offset_sums"), "task_offset_sums")
                ),
                task_lags=_task_map(raw.get("task_lags"), "task_lags"),
                prev_active=_task_list(raw.get("prev_active")),
                prev_standby=_task_list(raw.get("prev_standby")),
            )
        )
    return StreamsApp(
        group_id=str(group.get("id", "streams")),
        clients=tuple(clients),
        topology=Topology.from_dict(topo_doc),
        cluster=view,
        config=config,
        end_offsets=ends,
        assignor=assignor or ASSIGNOR_NAME,
    )


def _generation(doc: Mapping[str, Any], previous: AssignmentPlan | None) -> int | None:
    if previous is not None:
        return None  # strictly above the previous plan
    group = doc.get("group") or {}
    return int(group.get("generation", 1))


def parse_inputs(doc: Mapping[str, Any], previous: AssignmentPlan | None = None) -> StreamsInputs:
    """Validate a streams scenario document into the HA assignor's inputs."""
    generation = _generation(doc, previous)
    if generation is None and previous is not None:
        generation = previous.generation + 1
    return build_inputs(load_app(doc), previous, generation or 0)


def plan_from_scenario(
    doc: dict[str, Any], *, assignor: str | None = None, previous: AssignmentPlan | None = None
) -> AssignmentPlan:
    """The AssignmentPlan for a streams scenario (``assignor`` may name a rack strategy)."""
    return plan(
        load_app(doc, assignor), Round(previous=previous, generation=_generation(doc, previous))
    )


def compare_scenario(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per rack strategy (none, min_traffic, balance_subtopology), same inputs."""
    base = parse_inputs(doc)
    rows = []
    for strategy in STRATEGIES:
        inputs = replace(
            base, config=replace(base.config, rack_aware_assignment_strategy=strategy)
        )
        result = run(inputs)
        planned = build_plan(inputs, result, "initial", ASSIGNOR_NAME)
        row: dict[str, Any] = {"assignor": ASSIGNOR_NAME, "strategy": strategy}
        row.update(metrics(inputs, planned, result))
        rows.append(row)
    return rows
