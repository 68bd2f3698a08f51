"""Replica-rack and leader fingerprints and their debounce (agent.daemon.racks)."""

from __future__ import annotations

import pytest

from agent.daemon.racks import (
    UNKNOWN,
    Debouncer,
    diff,
    fingerprint,
    leader_fingerprint,
    merge_unknown,
)

pytestmark = pytest.mark.unit


RACKS = {1: "az1", 2: "az2", 3: "az3"}


def test_fingerprint_sets_and_unknown() -> None:
    assert fingerprint([[1, 2], [2, 1]], RACKS) == (("az1", "az2"), ("az1", "az2"))
    assert fingerprint([[1, 9]], RACKS) == (UNKNOWN,)
    assert fingerprint([[1, 3]], {1: "az1", 3: None}) == (UNKNOWN,)


def test_diff_ignores_unknown_reorder_and_same_rack_moves() -> None:
    a = fingerprint([[1, 2], [2, 3]], RACKS)
    assert diff(a, fingerprint([[2, 1], [3, 2]], RACKS)) is None
    assert diff(a, merge_unknown(a, fingerprint([[1, 9], [2, 3]], RACKS))) is None
    change = diff(a, fingerprint([[1, 3], [2, 3]], RACKS))
    assert change == {
        "kind": "replica-racks-changed",
        "partitions": [{"partition": 0, "from": ["az1", "az2"], "to": ["az1", "az3"]}],
    }
    assert diff(a, fingerprint([[1, 2], [2, 3], [3, 1]], RACKS))["kind"] == "partitions-changed"


def test_debounce_requires_the_change_to_hold() -> None:
    d = Debouncer(window_s=5)
    base = fingerprint([[1, 2]], RACKS)
    moved = fingerprint([[1, 3]], RACKS)
    assert d.observe("t", base, 0) is None
    assert d.observe("t", moved, 1) is None
    assert d.observe("t", base, 2) is None  # flapped back: pending cleared
    assert d.observe("t", moved, 3) is None  # pending again from t=3
    assert d.observe("t", moved, 7.9) is None
    change = d.observe("t", moved, 8.0)
    assert change is not None and change.topic == "t" and change.kind == "replica-racks-changed"
    assert d.observe("t", moved, 20) is None  # accepted: no repeat


def test_bouncing_broker_is_not_a_change() -> None:
    d = Debouncer(window_s=0)
    d.observe("t", fingerprint([[1, 2], [2, 3]], RACKS), 0)
    down = {1: "az1", 3: "az3"}  # broker 2 gone and never remembered: unknown
    for now in (1, 2, 3):
        assert d.observe("t", fingerprint([[1, 2], [2, 3]], down), now) is None
    assert d.observe("t", fingerprint([[1, 2], [2, 3]], RACKS), 4) is None


def test_leader_moves_are_debounced_into_leaders_changed() -> None:
    d = Debouncer(window_s=5, kind="leaders-changed")
    before = leader_fingerprint(3, {0: 1, 1: 2, 2: 3}, RACKS)
    assert before == (("az1",), ("az2",), ("az3",))
    after = leader_fingerprint(3, {0: 2, 1: 2, 2: 3}, RACKS)  # p0's leader moved az1 -> az2
    assert d.observe("t", before, 0) is None
    assert d.observe("t", after, 1) is None
    change = d.observe("t", after, 6)
    assert change is not None and change.kind == "leaders-changed"
    assert change.detail["partitions"] == [{"partition": 0, "from": ["az1"], "to": ["az2"]}]
    # no leader (an election under way) or a broker of unknown rack is never a move
    assert leader_fingerprint(3, {1: 2, 2: 9}, RACKS) == (UNKNOWN, ("az2",), UNKNOWN)
    assert d.observe("t", leader_fingerprint(3, {1: 2, 2: 9}, RACKS), 20) is None
    # a partition-count change is the replica debouncer's to report, not a leader move
    assert d.observe("t", leader_fingerprint(4, {0: 2, 1: 2, 2: 3, 3: 1}, RACKS), 30) is None
    assert d.observe("t", leader_fingerprint(4, {0: 2, 1: 2, 2: 3, 3: 1}, RACKS), 40) is None
