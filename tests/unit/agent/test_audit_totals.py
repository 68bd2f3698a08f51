"""The audit's fleet totals: the table's TOTAL row, ``--json``'s summary and ``--fail-above``.

Groups are hand-built and audited with the real pure code (agent.audit.audit_group) on a
fake ``describe``, as in test_audit.py; single-replica topics keep the test's own count of
cross-rack bytes independent of the read model.
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest

from agent.audit import (
    GroupAudit,
    RawGroup,
    RawMember,
    SavingUnknown,
    audit_group,
    fail_above,
    render_table,
    summarize,
)
from agent.cli.audit import exit_code, render_json
from assignor.cluster import ClusterView, TopicPartition
from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    encode_assignment,
    encode_subscription,
)
from protocol.pricing import Price

pytestmark = pytest.mark.unit

BROKERS = {1: "az1", 2: "az2", 3: "az3"}
RACKS = ("az1", "az2", "az3")


def _member(mid: str, rack: str, topic: str, parts: list[int]) -> RawMember:
    sub = Subscription(topics=[topic], rack_id=rack)
    asg = Assignment([TopicPartitions(topic, parts)] if parts else [])
    return RawMember(mid, metadata=encode_subscription(sub), assignment=encode_assignment(asg))


def _audit(name: str, members: dict[str, tuple[str, list[int]]], replicas: list[int],
           rates: list[float] | None) -> GroupAudit:
    """One group reading topic ``name`` (partition p on broker replicas[p]); ``rates`` None:
    traffic not measured."""
    raw = RawGroup(name, state="Stable", protocol_type="consumer", protocol="range",
                   members=tuple(_member(m, rack, name, parts)
                                 for m, (rack, parts) in sorted(members.items())))
    topics = {name: tuple((b,) for b in replicas)}
    bytes_per_s = {TopicPartition(name, p): r for p, r in enumerate(rates or [])}

    def describe(_names):  # type: ignore[no-untyped-def]
        return ClusterView(brokers=BROKERS, topics=topics, bytes_per_s=bytes_per_s)

    return audit_group(raw, describe)


def _random_group(rng: random.Random, name: str, measured: bool) -> tuple[GroupAudit, float]:
    """A random group and the test's own count of its cross-rack bytes/s."""
    n = rng.randint(2, 8)
    replicas = [rng.choice(sorted(BROKERS)) for _ in range(n)]
    rates = [float(rng.randint(0, 4 * 2**20)) for _ in range(n)]
    ids = [f"{name}-m{i}" for i in range(rng.randint(1, 3))]
    members: dict[str, tuple[str, list[int]]] = {m: (rng.choice(RACKS), []) for m in ids}
    for p in range(n):
        members[rng.choice(ids)][1].append(p)
    cross = sum(rates[p] for m in ids for p in members[m][1]
                if BROKERS[replicas[p]] != members[m][0])
    return _audit(name, members, replicas, rates if measured else None), cross


def test_random_fleet_totals_add_up_the_rows_and_leave_unmeasured_bytes_out() -> None:
    seed = random.Random().randrange(1 << 30)
    print(f"seed={seed}")
    rng = random.Random(seed)
    fleet = [_random_group(rng, f"g{i:02d}", measured=i % 3 != 2) for i in range(7)]
    broken = audit_group(RawGroup("zz-broken", error="COORDINATOR_NOT_AVAILABLE"),
                         lambda _t: ClusterView(brokers=BROKERS, topics={}))
    audits = [a for a, _ in fleet] + [broken]
    s = summarize(audits)

    with_bytes = [(a, cross) for a, cross in fleet if a.cross_rack_bytes_actual is not None]
    assert s.groups == 8 and s.measured_groups == 7
    assert s.groups_without_bytes == ("g02", "g05")
    assert s.cross_rack_bytes_actual == pytest.approx(sum(c for _, c in with_bytes))
    price = Price()
    actual_usd = round(sum(price.per_month(c) or 0.0 for _, c in with_bytes), 2)
    assert s.usd_per_month_actual == pytest.approx(actual_usd)
    rows = [a.to_json() for a, _ in with_bytes]
    best_usd = round(sum(r["usd_per_month_best"] for r in rows), 2)
    assert s.usd_per_month_best == pytest.approx(best_usd)
    assert s.saving_usd_per_month == pytest.approx(round(max(0.0, actual_usd - best_usd), 2))
    assert s.cross_rack_partitions_actual == sum(a.cross_rack_actual or 0 for a, _ in fleet)

    doc = json.loads(render_json(audits))
    assert [r["group"] for r in doc["groups"]] == [a.group for a in audits]
    summary = doc["summary"]
    assert summary["usd_per_month_saving"] == s.saving_usd_per_month
    assert (summary["groups"], summary["measured_groups"], summary["groups_without_bytes"]) == (
        8, 7, 2)
    assert summary["groups_without_bytes_names"] == ["g02", "g05"]

    table = render_table(audits)
    total = table.splitlines()[-1]
    assert set(table.splitlines()[-2]) <= {"-", " "}  # the rule above the totals
    assert total.startswith("TOTAL") and f"${actual_usd:,.2f}" in total
    assert f"saving ${s.saving_usd_per_month:,.2f}/month" in total
    assert "bytes not measured: g02, g05" in total


def test_groups_without_measured_bytes_total_na_not_zero() -> None:
    # a: two members reading each other's rack (2 cross-rack, best 0); b: one member whose
    # only partition lives in another rack (1, best 1)
    audits = [_audit("a", {"x": ("az1", [0]), "y": ("az2", [1])}, [2, 1], None),
              _audit("b", {"m": ("az2", [0])}, [3], None)]
    assert all(a.measured and a.cross_rack_bytes_actual is None for a in audits)
    s = summarize(audits)
    assert (s.usd_per_month_actual, s.usd_per_month_best, s.saving_usd_per_month) == (
        None, None, None)
    assert s.cross_rack_bytes_actual is None and s.groups_without_bytes == ("a", "b")
    assert (s.cross_rack_partitions_actual, s.cross_rack_partitions_best) == (3, 1)
    summary = json.loads(render_json(audits))["summary"]
    assert summary["usd_per_month_actual"] is None and summary["usd_per_month_saving"] is None
    assert summary["cross_rack_bytes_per_s_actual"] is None
    total = render_table(audits).splitlines()[-1]
    assert total.count("n/a") == 5  # two bytes, two money columns and the saving
    assert "$0.00" not in total and "0 B/s" not in total
    assert "saving n/a: no group's bytes measured" in total


def test_no_groups_no_total_row() -> None:
    table = render_table([])
    assert "TOTAL" not in table and table.endswith("(no matching groups)")
    summary = json.loads(render_json([]))["summary"]
    assert summary["groups"] == 0 and summary["usd_per_month_saving"] is None


def _paying() -> GroupAudit:
    # a (az1) reads t-0 from az2 at 3 MiB/s, b (az2) t-1 from az1 at 1 MiB/s: swapped, best 0
    return _audit("paying", {"a": ("az1", [0]), "b": ("az2", [1])}, [2, 1],
                  [3.0 * 2**20, 1.0 * 2**20])


@pytest.mark.parametrize("delta, exceeded", [(-0.01, True), (0.0, False), (0.01, False)])
def test_fail_above_below_at_and_above_the_saving(
        delta: float, exceeded: bool, capsys: pytest.CaptureFixture[str]) -> None:
    s = summarize([_paying()])
    saving = Price().per_month(4 * 2**20)
    assert saving is not None and s.saving_usd_per_month == pytest.approx(saving)
    limit = round(saving + delta, 2)
    verdict, line = fail_above(s, limit)
    assert verdict is exceeded
    assert ("exceeds" in line) is exceeded and f"${saving:,.2f}/month" in line
    assert exit_code(s, limit) == (1 if exceeded else 0)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("exceeds" in err) is exceeded
    assert exit_code(s, None) == 0  # no flag: the usual exit code


def test_fail_above_counts_what_was_measured_and_says_what_was_not() -> None:
    s = summarize([_paying(), _audit("quiet", {"m": ("az1", [0])}, [2], None)])
    exceeded, line = fail_above(s, 1.0)
    assert exceeded and "1 group without measured bytes not counted" in line


def test_fail_above_with_an_unknown_saving_is_an_error_not_a_pass() -> None:
    s = summarize([_audit("a", {"m": ("az1", [0])}, [2], None)])
    with pytest.raises(SavingUnknown, match="unknown"):
        fail_above(s, 100.0)
    # an unmeasurable group alone: nothing measured, the saving is unknown too
    s = summarize([audit_group(RawGroup("x", error="GROUP_AUTHORIZATION_FAILED"),
                               lambda _t: ClusterView(brokers=BROKERS, topics={}))])
    assert s.measured_groups == 0 and s.groups == 1
    assert summarize([]).saving_usd_per_month is None
    with pytest.raises(SavingUnknown):
        fail_above(s, 0.0)


@pytest.mark.parametrize("argv", [
    ["--fail-above", "-1"],
    ["--fail-above", "nan"],
    ["--fail-above", "5", "--window", "0"],
])
def test_fail_above_bad_input_is_a_one_line_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import main

    assert main(["audit", "--bootstrap", "127.0.0.1:1", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--fail-above" in err


@pytest.mark.parametrize("limit, code", [("1", 1), ("100000", 0)])
def test_the_command_prints_the_summary_and_exits_on_the_saving(
        limit: str, code: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`rackwise audit --json --fail-above`, end to end but for the cluster (run_audit and
    the AdminClient faked: nothing connects)."""
    import confluent_kafka.admin

    import agent.audit
    from agent.cli import main

    audits = [_paying(), _audit("quiet", {"m": ("az1", [0])}, [2], None)]
    monkeypatch.setattr(agent.audit, "run_audit", lambda *_a, **_k: audits)
    monkeypatch.setattr(confluent_kafka.admin, "AdminClient", lambda _conf: contextlib.nullcontext(object()))
    monkeypatch.delenv("RACKWISE_BOOTSTRAP", raising=False)
    assert main(["audit", "--bootstrap", "127.0.0.1:1", "--json", "--fail-above", limit]) == code
    out, err = capsys.readouterr()
    summary = json.loads(out)["summary"]
    assert summary["usd_per_month_saving"] == Price().per_month(4 * 2**20)
    assert summary["groups_without_bytes_names"] == ["quiet"]
    assert err.count("\n") == 1 and ("exceeds" in err) is (code == 1)
