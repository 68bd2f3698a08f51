"""The cooperative hand-over rule (assignor.withholding), which the seam and rack-optimal share."""

from __future__ import annotations

import pytest

from assignor.base import Withheld
from assignor.cluster import TopicPartition
from assignor.withholding import withhold_owned

pytestmark = pytest.mark.unit

T0, T1, T2 = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)


def test_a_partition_another_member_owns_waits_for_it() -> None:
    now, withheld = withhold_owned({"c2": [T0, T1], "c1": [T2]}, {"c1": [T0, T2]})
    assert now == {"c2": [T1], "c1": [T2]}
    assert list(now) == ["c2", "c1"]  # the target's order is kept
    assert withheld == [Withheld(partition=T0, owner="c1", target="c2")]


def test_the_lowest_other_owner_is_named() -> None:
    _, withheld = withhold_owned({"c1": [T0]}, {"c3": [T0], "c2": [T0], "c1": [T0]})
    assert withheld == [Withheld(partition=T0, owner="c2", target="c1")]


def test_nothing_owned_elsewhere_withholds_nothing() -> None:
    assert withhold_owned({"c1": [T0], "c2": []}, {"c1": [T0]}) == ({"c1": [T0], "c2": []}, [])
