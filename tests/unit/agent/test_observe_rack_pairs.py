"""Observe mode's per-rack-pair bytes (the dashboard's "bytes/s per rack pair" panel): what
a plan's members read, summed by (rack serving them, rack of the reader), exported as
``rackwise_observed_rack_pair_bytes_per_second`` and dropped when a pair or group goes away."""

from __future__ import annotations

from typing import Any

import pytest

from agent.audit import OK
from agent.audit.model import GroupAudit
from agent.daemon.observe import Observer, rack_pair_bytes
from agent.daemon.ops import Metrics
from protocol.plan import AssignmentPlan
from tests.support.agent import isolated_settings

pytestmark = pytest.mark.unit
SUMMARY = {"partitions": 3, "cross_rack_partitions": 1, "traffic_cost": 1.0, "max_load": 2,
           "min_load": 1}


def _part(p: int, rate: float | None, source: str | None, cross: bool) -> dict[str, Any]:
    return {"topic": "t", "partition": p, "replica_racks": ["az1", "az2"], "cross_rack": cross,
            "bytes_per_s": rate, "source_rack": source,
            "cross_rack_bytes_per_s": None if rate is None else (rate if cross else 0.0)}


def _plan(members: list[dict[str, Any]]) -> AssignmentPlan:
    return AssignmentPlan(group_id="g", generation=1, reason="observed", assignor="range",
                          members=members, summary=SUMMARY)  # type: ignore[arg-type]


def test_bytes_are_summed_by_serving_rack_and_reader_rack() -> None:
    plan = _plan([
        {"member_id": "a", "rack": "az1",
         "partitions": [_part(0, 100.0, "az1", False), _part(1, 50.0, "az1", False)]},
        {"member_id": "b", "rack": "az3", "partitions": [_part(2, 10.0, "az1", True)]},
        # rack-unknown member: no client.rack, no host map; unmeasured partition left out
        {"member_id": "c", "partitions": [_part(3, 7.0, "az2", False), _part(4, None, None, False)]},
        # placed by the host map
        {"member_id": "d", "location": "az2", "rack_source": "host-map",
         "partitions": [_part(5, 3.0, "az2", False)]},
    ])
    assert rack_pair_bytes(plan) == {("az1", "az1"): 150.0, ("az1", "az3"): 10.0,
                                     ("az2", "unknown"): 7.0, ("az2", "az2"): 3.0}


def test_unmeasured_plan_has_no_pairs() -> None:
    plan = _plan([{"member_id": "a", "rack": "az1", "partitions": [_part(0, None, None, False)]}])
    assert rack_pair_bytes(plan) == {}


def _audit(actual_reader: str, best_reader: str) -> GroupAudit:
    def plan(reader: str) -> AssignmentPlan:
        return _plan([{"member_id": "a", "rack": reader,
                       "partitions": [_part(0, 40.0, "az1", reader != "az1")]}])
    return GroupAudit(group="g", status=OK, kind="consumer", members=1, partitions=1,
                      cross_rack_actual=int(actual_reader != "az1"),
                      cross_rack_best=int(best_reader != "az1"),
                      actual=plan(actual_reader), best=plan(best_reader))


def _series(metrics: Metrics) -> dict[tuple[str, ...], float]:
    out = {}
    for family in metrics.registry.collect():
        for s in family.samples:
            if s.name == "rackwise_observed_rack_pair_bytes_per_second":
                labels = s.labels
                out[(labels["plan"], labels["from_rack"], labels["to_rack"])] = s.value
    return out


def test_observer_exports_pairs_per_plan_and_drops_stale_ones() -> None:
    metrics = Metrics()
    settings = isolated_settings("127.0.0.1:1", "unit-pairs", observe={"groups": "g"})
    observer = Observer(settings, metrics, lambda _g: False, 1, admin=object())  # type: ignore[arg-type]
    observer._export([_audit("az2", "az1")])
    assert _series(metrics) == {("actual", "az1", "az2"): 40.0, ("best", "az1", "az1"): 40.0}
    observer._export([_audit("az1", "az1")])  # the group moved its reader: az1 -> az2 is gone
    assert _series(metrics) == {("actual", "az1", "az1"): 40.0, ("best", "az1", "az1"): 40.0}
    observer._export([])  # the group is gone
    assert _series(metrics) == {}


def _rated(rate: float, reader: str = "az3") -> GroupAudit:
    def plan() -> AssignmentPlan:
        return _plan([{"member_id": "a", "rack": reader,
                       "partitions": [_part(0, rate, "az1", reader != "az1")]}])
    return GroupAudit(group="g", status=OK, kind="consumer", members=1, partitions=1,
                      cross_rack_actual=1, cross_rack_best=0, actual=plan(), best=plan())


def test_a_plan_is_written_again_only_when_something_moved() -> None:
    """Observe mode once wrote both plans every round: the measured bytes/s change a little
    every time and were part of what 'changed' meant."""
    from agent.daemon.observe import _fingerprint

    base = _fingerprint(_rated(1000.0))
    assert _fingerprint(_rated(1000.0)) == base
    assert _fingerprint(_rated(1030.0)) == base, "a 3 % wobble is no change"
    assert _fingerprint(_rated(1300.0)) != base, "30 % more bytes is"
    assert _fingerprint(_rated(0.0)) != base
    assert _fingerprint(_rated(1000.0, reader="az2")) != base, "another rack is a change"
