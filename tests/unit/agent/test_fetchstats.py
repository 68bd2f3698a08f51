"""Plan against wire (agent/dev/fetchstats.py, agent/dev/demo/fetchwindow.py), without Kafka: librdkafka
statistics parsed, windows subtracted, and a plan set against what its clients fetched."""

from __future__ import annotations

import json

import pytest

from agent.dev.demo.fetchwindow import holds, wire_line
from agent.dev.fetchstats import (
    ClientView,
    PartitionFetch,
    follows,
    rdkafka_fetches,
    rdkafka_fetching,
    rdkafka_stats,
    wire_figures,
)
from protocol.plan import AssignmentPlan, MemberPlan, PartitionPlan, PlanSummary

pytestmark = pytest.mark.unit

RACKS = {1: "az1", 2: "az2", 3: "az3"}


def _plan() -> AssignmentPlan:
    """Partitions 0, 1 on [1, 2]: az1 reads 0 locally, az3 reads 1 across racks."""
    def part(p: int, cross: bool) -> PartitionPlan:
        return PartitionPlan(topic="t", partition=p, replica_racks=["az1", "az2"], cross_rack=cross)

    return AssignmentPlan(
        group_id="g", generation=4, reason="initial", assignor="rack-optimal",
        members=[MemberPlan(member_id="m1", rack="az1", partitions=[part(0, False)]),
                 MemberPlan(member_id="m3", rack="az3", partitions=[part(1, True)])],
        summary=PlanSummary(partitions=2, cross_rack_partitions=1, traffic_cost=1.0,
                            max_load=1, min_load=1))


def test_rdkafka_statistics_give_broker_and_bytes_per_partition() -> None:
    raw = json.dumps({"topics": {"t": {"partitions": {
        "0": {"broker": 2, "rxbytes": 1000, "rxmsgs": 5},
        "1": {"broker": -1, "rxbytes": 0, "rxmsgs": 0},
        "-1": {"broker": -1, "rxbytes": 0, "rxmsgs": 0}}}, "other": {"partitions": {
        "0": {"broker": 1, "rxbytes": 7, "rxmsgs": 1}}}}})
    assert rdkafka_fetches(raw, "t") == {("t", 0): PartitionFetch(5, 1000, 2),
                                         ("t", 1): PartitionFetch(0, 0, None)}
    assert rdkafka_fetches(json.dumps({"topics": {}}), "t") == {}


def test_one_parse_gives_what_the_two_readers_give() -> None:
    raw = json.dumps({"topics": {"t": {"partitions": {
        "0": {"broker": 2, "rxbytes": 1000, "rxmsgs": 5, "fetch_state": "active"},
        "1": {"broker": -1, "rxbytes": 0, "rxmsgs": 0, "fetch_state": "stopped"},
        "2": {"broker": 3, "rxbytes": 10, "rxmsgs": 1, "fetch_state": "active"},
        "-1": {"broker": -1, "rxbytes": 0, "rxmsgs": 0, "fetch_state": "active"}}}}})
    fetches, fetching = rdkafka_stats(raw, "t")
    assert fetches == rdkafka_fetches(raw, "t")
    assert fetching == rdkafka_fetching(raw, "t") == frozenset({("t", 0), ("t", 2)})
    assert rdkafka_stats(json.dumps({"topics": {}}), "t") == ({}, frozenset())


def test_a_window_is_the_difference_with_the_later_broker() -> None:
    early = ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(3, 300, 2)})
    late = ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(8, 800, 1),
                                                           ("t", 1): PartitionFetch(1, 50, 2)})
    window = late.since(early)
    assert window.fetches == {("t", 0): PartitionFetch(5, 500, 1), ("t", 1): PartitionFetch(1, 50, 2)}
    assert window.bytes == 550


def test_a_plan_that_holds_on_the_wire() -> None:
    views = [ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(10, 1000, 1)}),
             ClientView("m3", "az3", frozenset({("t", 1)}), {("t", 1): PartitionFetch(10, 1000, 2)})]
    fig = wire_figures(_plan(), views, RACKS, {("t", 0): 1000, ("t", 1): 1000})
    assert (fig.planned_cross_bytes, fig.measured_cross_bytes, fig.total_bytes) == (1000, 1000, 2000)
    assert fig.written_bytes == 2000
    assert fig.local_fetched_elsewhere == () and fig.unfetched == () and fig.stray == ()
    assert follows(_plan(), [_Client(v) for v in views])


def test_a_local_partition_fetched_from_the_leader_elsewhere_is_caught() -> None:
    # m1 has no client.rack, say: partition 0 is fetched from its leader on broker 2 (az2).
    views = [ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(10, 1000, 2)}),
             ClientView("m3", "az3", frozenset({("t", 1)}), {("t", 1): PartitionFetch(10, 1000, 2)})]
    fig = wire_figures(_plan(), views, RACKS, {("t", 0): 1000, ("t", 1): 1000})
    assert fig.local_fetched_elsewhere == ("t-0@az1",)
    assert fig.measured_cross_bytes == 2000 != fig.planned_cross_bytes


def test_bytes_read_twice_or_not_at_all_show() -> None:
    # Partition 1 read by its owner and again by m1 (from az2): measured above planned;
    # partition 0 not read at all: unfetched.
    views = [ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(0, 0, 1),
                                                             ("t", 1): PartitionFetch(10, 1000, 2)}),
             ClientView("m3", "az3", frozenset({("t", 1)}), {("t", 1): PartitionFetch(10, 1000, 2)})]
    fig = wire_figures(_plan(), views, RACKS, {("t", 0): 1000, ("t", 1): 1000})
    assert fig.unfetched == ("t-0@az1",)
    assert (fig.planned_cross_bytes, fig.measured_cross_bytes, fig.total_bytes) == (1000, 2000, 2000)
    # the reader the plan does not name is named, with the broker it fetched from
    assert fig.stray == ("t-1@az1",)
    assert "az1 t-1: NOT in this member's plan, fetched from broker 2 (az2), 10 records" in fig.lines[-1]
    # A member the clients do not know: its partitions are unfetched, nothing raises.
    fig = wire_figures(_plan(), views[:1], RACKS, {("t", 0): 1000, ("t", 1): 1000})
    assert "t-1@az3" in fig.unfetched
    assert not follows(_plan(), [_Client(v) for v in views[:1]])


def test_without_written_bytes_planned_is_what_the_owners_received() -> None:
    views = [ClientView("m1", "az1", frozenset({("t", 0)}), {("t", 0): PartitionFetch(4, 400, 1)}),
             ClientView("m3", "az3", frozenset({("t", 1)}), {("t", 1): PartitionFetch(3, 300, 1)})]
    fig = wire_figures(_plan(), views, RACKS)
    assert (fig.planned_cross_bytes, fig.measured_cross_bytes, fig.written_bytes) == (300, 300, None)


def test_the_printed_verdict() -> None:
    f = {"kind": "classic Java", "plan_generation": 4, "partitions": 6, "cross_rack_partitions": 2,
         "planned_cross_bytes": 200_000, "written_bytes": 600_000, "measured_cross_bytes": 200_000,
         "received_bytes": 600_000, "local_fetched_elsewhere": [], "unfetched": [],
         "clients_follow_plan": True}
    assert holds(f)
    assert wire_line("g", "before", f).endswith("fetched locally 4 of 4: plan holds")
    assert "planned 200,000 B cross-rack of 600,000 B written" in wire_line("g", "before", f)
    for broken in ({"measured_cross_bytes": 201_000}, {"received_bytes": 601_000},
                   {"local_fetched_elsewhere": ["t-0@az1"]}, {"clients_follow_plan": False}):
        assert not holds({**f, **broken})
    assert "3 of 4: PLAN DOES NOT HOLD" in wire_line("g", "x", {**f, "local_fetched_elsewhere": ["a"]})


class _Client:
    def __init__(self, view: ClientView) -> None:
        self._view = view
        self.member_id = view.member_id

    def assignment(self) -> frozenset[tuple[str, int]]:
        return self._view.assignment

    def view(self) -> ClientView:
        return self._view


class _Future:
    def __init__(self, value: object) -> None:
        self.value = value

    def result(self, timeout: float | None = None) -> object:
        return self.value


class _Admin:
    """describe_cluster / describe_configs of brokers whose group.consumer.assignors is given."""

    def __init__(self, assignors: dict[int, str | None]) -> None:
        self.assignors = assignors

    def describe_cluster(self, request_timeout: float) -> _Future:
        from types import SimpleNamespace

        return _Future(SimpleNamespace(nodes=[SimpleNamespace(id=n) for n in self.assignors]))

    def describe_configs(self, resources: list, request_timeout: float) -> dict:  # type: ignore[type-arg]
        from types import SimpleNamespace

        value = self.assignors[int(resources[0].name)]
        entries = {} if value is None else {"group.consumer.assignors": SimpleNamespace(value=value)}
        return {resources[0]: _Future(entries)}


def test_the_kip848_group_is_skipped_with_a_reason_where_it_cannot_run() -> None:
    from agent.dev.demo.plugged import kip848_skip_reason

    loaded = "uniform,range,dev.rackwise.plugins.RackwiseGroupAssignor"
    assert kip848_skip_reason(_Admin({1: loaded, 2: loaded}), "", "rackwise.plans") is None
    why = kip848_skip_reason(_Admin({1: loaded, 2: "uniform,range"}), "", "rackwise.plans")
    assert why is not None and "do not list rackwise's assignor" in why
    assert kip848_skip_reason(_Admin({1: None}), "", "rackwise.plans") is not None
    why = kip848_skip_reason(_Admin({1: loaded}), "-ab12cd", "rackwise.plans-ab12cd")
    assert why is not None and "rackwise.plans-ab12cd" in why
