"""Run the JVM Streams task core (``dev.rackwise.tasks`` in the plug-in jar) on many problems,
and the Python reference (``assignor.streams``) on the same ones, in one answer format.

The parity suite (docs/streams-assignor.md § 7) hands every generated application to one JVM
running ``tests/java/streams-core-parity``: one JSON line per problem in, one per answer out,
in order. The harness compiles against ``plugins/target/rackwise-plugins.jar`` and this
module appends that jar to the class path, so the jar under test is the one ``make plugins``
built.

Problem line (``problem_doc``)::

    {"id": "gen-7", "tasks": [{"id": "0_1", "stateful": true, "sources": [["src0-0", 1]],
                                "changelogs": [["app-store0-changelog", 1]]}],
     "replica_racks": [["src0-0", 1, ["az1", "az2"]]], "weights": [["src0-0", 1, 40]],
     "clients": [{"process_id": "p1", "threads": 2, "rack": "az1", "tags": {},
                  "prev_active": [], "prev_standby": [], "lags": {"0_1": -2}}],
     "config": {"acceptable_recovery_lag": 100, "max_warmup_replicas": 2,
                "num_standby_replicas": 1, "probing_rebalance_interval_ms": 600000,
                "strategy": "min_traffic", "traffic_cost": null, "non_overlap_cost": null,
                "tags": []}}

Answer line (``python_answer`` gives the same for the Python)::

    {"id": "gen-7", "clients": {"p1": {"active": ["0_1"], "standby": [], "warmup": []}},
     "followup": false, "rack_aware": true,
     "costs": {"stateful_active": 0, "standby": 3}, "nanos": 81234}
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from assignor.cluster import TopicPartition
from assignor.scenario.streams import parse_inputs
from assignor.streams.model import StreamsInputs
from assignor.streams.run import run
from bench.streams_gen import generate
from tests.support.javaharness import run_json_lines

PROJECT = "tests/java/streams-core-parity"
MAIN = "dev.rackwise.tests.StreamsCoreParity"


def with_view_weights(inputs: StreamsInputs) -> StreamsInputs:
    """The scenario's ``cluster.weights`` as the task weights (integers, as generated)."""
    return replace(inputs, weights={tp: int(w) for tp, w in inputs.view.weights.items()})


def problem_doc(inputs: StreamsInputs, ident: str) -> dict[str, Any]:
    """The JVM core's input for the same problem the Python solves from ``inputs``."""
    tasks = inputs.tasks
    view = inputs.view
    parts: set[TopicPartition] = set()
    task_docs = []
    for task in tasks.all:
        src = tasks.source[task]
        log = tasks.changelog[task] if task in tasks.stateful else ()
        parts.update(src)
        parts.update(log)
        task_docs.append({
            "id": str(task), "stateful": task in tasks.stateful,
            "sources": [[tp.topic, tp.partition] for tp in src],
            "changelogs": [[tp.topic, tp.partition] for tp in log],
        })
    racks = []
    for tp in sorted(parts):
        if tp.partition < view.partition_count(tp.topic):
            replicas = view.replicas(tp.topic, tp.partition)
            racks.append([tp.topic, tp.partition, [view.brokers.get(b) for b in replicas]])
    cfg = inputs.config
    return {
        "id": ident,
        "tasks": task_docs,
        "replica_racks": racks,
        "weights": [[tp.topic, tp.partition, w] for tp, w in sorted(inputs.weights.items())],
        "clients": [
            {
                "process_id": c.process_id, "threads": c.threads, "rack": c.rack,
                "tags": dict(c.tags),
                "prev_active": sorted(str(t) for t in c.prev_active),
                "prev_standby": sorted(str(t) for t in c.prev_standby),
                "lags": {str(t): lag for t, lag in sorted(c.lags.items())},
            }
            for c in inputs.clients
        ],
        "config": {
            "acceptable_recovery_lag": cfg.acceptable_recovery_lag,
            "max_warmup_replicas": cfg.max_warmup_replicas,
            "num_standby_replicas": cfg.num_standby_replicas,
            "probing_rebalance_interval_ms": cfg.probing_rebalance_interval_ms,
            "strategy": cfg.rack_aware_assignment_strategy,
            "traffic_cost": cfg.rack_aware_assignment_traffic_cost,
            "non_overlap_cost": cfg.rack_aware_assignment_non_overlap_cost,
            "tags": list(cfg.rack_aware_assignment_tags),
        },
    }


def python_answer(inputs: StreamsInputs, ident: str) -> dict[str, Any]:
    """The Python reference's answer, in the JVM harness's format."""
    result = run(inputs)
    clients = {}
    for pid, state in result.clients.items():
        warm = result.warmups.get(pid, set())
        clients[pid] = {
            "active": [str(t) for t in sorted(state.active)],
            "standby": [str(t) for t in sorted(state.standby - warm)],
            "warmup": [str(t) for t in sorted(state.standby & warm)],
        }
    return {
        "id": ident,
        "clients": dict(sorted(clients.items())),
        "followup": result.probing_needed,
        "rack_aware": result.rack_enabled,
        "costs": dict(result.step_costs),
    }


def run_core(problems: list[dict[str, Any]], *, timeout: float = 600,
             heap: str = "-Xmx1g") -> list[dict[str, Any]]:
    """One answer per problem, in order (see the module docstring), or ``error`` for a
    problem the core rejected. All problems run in one JVM."""
    return run_json_lines(PROJECT, MAIN, problems, timeout=timeout, heap=heap)


def parity_case(seed: int, *, tiny: bool = False) -> tuple[StreamsInputs, dict[str, Any]]:
    """The generated application of the task-core parity suite for ``seed`` and what was
    drawn: lags (warm-ups), KIP-708 tags, 1-3 threads, 0-2 standbys, stateless and stateful
    subtopologies, 1-6 racks, strategies none / min_traffic / balance_subtopology, integer
    weights or none, UUID or short process ids, now and then a client without rack, and
    non-default costs. ``tiny``: at most 6 tasks and 3 clients (for the brute force)."""
    rng = random.Random(seed)
    drawn: dict[str, Any] = {
        "strategy": rng.choice(["none", "min_traffic", "balance_subtopology"]),
        "tasks": rng.randint(1, 6) if tiny else rng.randint(1, 30),
        "clients": rng.randint(1, 3) if tiny else rng.randint(1, 7),
        "racks": rng.randint(1, 6),
        "rf": rng.randint(1, 3),
        "standbys": rng.randint(0, 2),
        "subtopologies": rng.randint(1, 3),
        "source_partitions": rng.randint(1, 2),
        "lagged": rng.random() < 0.5,
        "tags": rng.random() < 0.3,
        "weights": rng.random() < 0.5,
        "uuids": rng.random() < 0.5,
        "rackless": 0.1 if rng.random() < 0.2 else 0.0,
        "costs": rng.choice([(None, None), (None, None), (5, 2), (1, 0), (0, 3)]),
        "max_warmup_replicas": rng.randint(1, 3),
    }
    if tiny:
        drawn["lagged"] = drawn["tags"] = False
        drawn["rackless"] = 0.0
    doc = generate(
        seed,
        tasks=drawn["tasks"], clients=drawn["clients"], racks=drawn["racks"], rf=drawn["rf"],
        standbys=drawn["standbys"], strategy=drawn["strategy"],
        subtopologies=min(drawn["subtopologies"], drawn["tasks"]),
        source_partitions=drawn["source_partitions"], max_threads=3, lagged=drawn["lagged"],
        tags=drawn["tags"], weights=drawn["weights"], uuids=drawn["uuids"],
        rackless=drawn["rackless"], costs=drawn["costs"],
    )
    doc["group"]["config"]["max_warmup_replicas"] = drawn["max_warmup_replicas"]
    return with_view_weights(parse_inputs(doc)), drawn
