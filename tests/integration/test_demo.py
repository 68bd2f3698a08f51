"""`rackwise demo` end to end, as a user runs it, on its own testbed (a private port base).

The demo runs as a subprocess with ``--keep`` so that, afterwards, this test can read the
plans topic itself and check that the figures the demo printed (from the Spark metrics
job's Parquet) are those of the plans the agent really published; then it stops the
testbed and checks that nothing the demo started is left: no agent, no broker port.

Plan vs wire: for every group that fetched data (the two PlanFollower groups before and after
the move, the classic Java group with RackwiseAssignor and the KIP-848 group before it), the
plan the demo measured against is the one on the plans topic, every partition it calls local
was fetched from a broker in the member's own rack (the clients' own statistics), and the
cross-rack bytes the clients measured equal the planned ones exactly: both are key + value
bytes (librdkafka's rxbytes, the Java client's serialized sizes) of records written after the
group settled, each read once by the one owner the plan names, so there is nothing to
tolerate; a record read twice or fetched from the wrong rack shows as a difference.

RACKWISE_DEMO_TEST_PORT_BASE moves the private testbed (default 23092: clear of the
session testbed's 19092 and below the ephemeral port range).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.dev.tail import PlanReader
from agent.dev.testbed import Testbed

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
PORT_BASE = int(os.environ.get("RACKWISE_DEMO_TEST_PORT_BASE", "23092"))


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_demo_prints_figures_of_the_published_plans(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bed_dir = tmp_path / "testbed"
    bed = Testbed(base_dir=bed_dir, port_base=PORT_BASE)
    ports = [p for n in bed.nodes for p in (n.client_port, n.controller_port)]
    if any(_listening(p) for p in ports):
        pytest.skip(f"ports {ports} are taken; set RACKWISE_DEMO_TEST_PORT_BASE")
    env = {k: v for k, v in os.environ.items() if k != "RACKWISE_BOOTSTRAP"}
    env.update(RACKWISE_TESTBED_PORT_BASE=str(PORT_BASE), RACKWISE_TESTBED_DIR=str(bed_dir),
               PYTHONUNBUFFERED="1")
    began = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "agent", "demo", "--keep", "--out", str(out)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=720,
        )
        took = time.monotonic() - began
        print(proc.stdout)
        print(proc.stderr[-5000:], file=sys.stderr)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "cross-rack figures per group" in proc.stdout
        summary = json.loads((out / "summary.json").read_text())
        assert not _alive(summary["agent_pid"]), "the agent outlived the demo"
        report = Path(summary["report"])
        assert report.exists() and str(report) in proc.stdout
        assert any(report.parent.glob("*.png"))
        _check_against_published_plans(summary)
        _check_plan_against_wire(summary, bed.plugins)
        print(f"demo took {took:.0f}s")
    finally:
        bed.down()
    assert not [p for p in ports if _listening(p)], "a testbed port is still open"


def _check_against_published_plans(summary: dict) -> None:  # type: ignore[type-arg]
    groups = summary["groups"]
    for group, figures in groups.items():
        reader = PlanReader(summary["bootstrap"], summary["plans_topic"], group)
        try:
            want = max(figures["before"]["generation"], figures["after"]["generation"])
            reader.wait_plan(lambda p, w=want: p.generation >= w, 60)
            plans = {p.generation: p for p in reader.plans()}
        finally:
            reader.close()
        for when in ("before", "after"):
            fig = figures[when]
            plan = plans[fig["generation"]]
            crossing = sum(1 for m in plan.members for p in m.partitions if p.cross_rack)
            assert fig["cross_rack_partitions"] == crossing == plan.summary.cross_rack_partitions
            assert fig["partitions"] == sum(len(m.partitions) for m in plan.members)
            assert fig["traffic_cost"] == plan.summary.traffic_cost
            assert fig["lower_bound"] == plan.summary.lower_bound
            assert not plan.withheld and len(plan.members) == 3
        before, after = figures["before"], figures["after"]
        # Between the two, the agent re-planned because the replica racks changed.
        assert any(
            before["generation"] < g <= after["generation"] and p.reason == "replica-racks-changed"
            for g, p in plans.items()
        ), sorted((g, p.reason) for g, p in plans.items())
    orders = groups["demo-orders"]
    # The skewed layout leaves az3 nothing local (2 of 6 cross-rack); the move gives it
    # replicas of two partitions and the re-plan puts them there.
    assert orders["before"]["cross_rack_partitions"] == 2
    assert orders["after"]["cross_rack_partitions"] == 0
    assert orders["before"]["cross_rack_partitions"] > orders["after"]["cross_rack_partitions"]
    clicks = groups["demo-clicks"]
    assert clicks["before"]["cross_rack_partitions"] > clicks["after"]["cross_rack_partitions"]


def _plans(summary: dict, group: str, generations: list[int]) -> dict:  # type: ignore[type-arg]
    reader = PlanReader(summary["bootstrap"], summary["plans_topic"], group)
    try:
        reader.wait_plan(lambda p: p.generation >= max(generations), 60)
        return {p.generation: p for p in reader.plans()}
    finally:
        reader.close()


def _check_plan_against_wire(summary: dict, plugins: bool) -> None:  # type: ignore[type-arg]
    wire, plug_in = summary["wire"], summary["plug_in_groups"]
    assert plug_in["demo-payments"]["status"] == "measured", plug_in
    # The private testbed loads rackwise's broker assignor when the jar is built (make setup).
    if plugins:
        assert plug_in["demo-views"]["status"] == "measured", plug_in
    else:
        assert plug_in["demo-views"]["status"] == "skipped", plug_in
    measured = {g for g, o in plug_in.items() if o["status"] == "measured"}
    assert set(wire["before"]) == {"demo-orders", "demo-clicks"} | measured
    assert set(wire["after"]) == {"demo-orders", "demo-clicks"}
    for when, groups in wire.items():
        for group, f in groups.items():
            plan = _plans(summary, group, [f["plan_generation"]])[f["plan_generation"]]
            if group in plug_in:  # the plug-in computed it in-process and published it
                assert plan.reason == "assigned" and plan.assignor == "rack-optimal", plan.reason
            cross = [(p.topic, p.partition) for m in plan.members for p in m.partitions
                     if p.cross_rack]
            print(f"{when} {group}: plan gen {plan.generation}, {len(cross)} of "
                  f"{f['partitions']} cross-rack; planned {f['planned_cross_bytes']} B, "
                  f"measured {f['measured_cross_bytes']} B, received {f['received_bytes']} of "
                  f"{f['written_bytes']} B written")
            assert f["cross_rack_partitions"] == len(cross) == plan.summary.cross_rack_partitions
            assert f["planned_cross_bytes"] == len(cross) * f["written_bytes_per_partition"]
            assert f["written_bytes"] == f["partitions"] * f["written_bytes_per_partition"] > 0
            assert f["clients_follow_plan"], (when, group)
            assert not f["unfetched"], (when, group, f["partition_lines"])
            # Every partition the plan calls local is fetched in the member's own rack ...
            assert not f["local_fetched_elsewhere"], (when, group, f["partition_lines"])
            # ... and the bytes measured across racks are the planned ones, to the byte.
            assert f["measured_cross_bytes"] == f["planned_cross_bytes"], (when, group, f)
            # ... and every written byte received once, by the member the plan names.
            assert not f["stray"], (when, group, f["partition_lines"])
            assert f["received_bytes"] == f["written_bytes"], (when, group, f["partition_lines"])
            if when == "before":
                # az3 holds no replica: its member reads its two partitions across racks.
                assert len(cross) == 2 and f["measured_cross_bytes"] > 0, (group, f)
    # After the move az3 has replicas of two partitions and reads them locally.
    assert wire["after"]["demo-orders"]["measured_cross_bytes"] == 0
    assert wire["after"]["demo-clicks"]["measured_cross_bytes"] \
        < wire["before"]["demo-clicks"]["measured_cross_bytes"]
