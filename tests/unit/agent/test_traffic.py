"""The traffic estimator's arithmetic (agent.brokers.traffic): rates from two samples, and weights."""

from __future__ import annotations

import pytest

from agent.brokers.traffic import PartitionSample, Sample, partition_rate, rates_between, weights_from
from assignor.cluster import TopicPartition

pytestmark = pytest.mark.unit
TP = TopicPartition("t", 0)


def test_size_growth_gives_the_rate() -> None:
    a, b = PartitionSample(0, 100, 40_000, 1), PartitionSample(0, 150, 90_000, 1)
    assert partition_rate(a, b, 10.0, 10.0) == 5_000.0


def test_deleted_segment_falls_back_to_offsets_times_bytes_per_offset() -> None:
    # retention moved the log start: size shrank although 100 records were appended
    a, b = PartitionSample(0, 1000, 100_000, 1), PartitionSample(500, 1100, 60_000, 1)
    assert partition_rate(a, b, 10.0, 10.0) == pytest.approx(100 * (60_000 / 600) / 10)


def test_leader_change_uses_offsets() -> None:
    a, b = PartitionSample(0, 100, 10_000, 1), PartitionSample(0, 200, 20_500, 2)
    assert partition_rate(a, b, 10.0, 10.0) == pytest.approx(100 * (20_500 / 200) / 10)


def test_idle_unknown_and_empty() -> None:
    assert partition_rate(PartitionSample(0, 5, 50), PartitionSample(0, 5, 50), 1.0, 1.0) == 0.0
    assert partition_rate(PartitionSample(0, 5, None), PartitionSample(0, 9, None), 1.0, 1.0) == 0.0


def test_rates_between_samples_and_weights() -> None:
    hot, cold, idle = TP, TopicPartition("t", 1), TopicPartition("t", 2)
    a = Sample(0.0, 0.0, {hot: PartitionSample(0, 0, 0), cold: PartitionSample(0, 0, 0),
                          idle: PartitionSample(0, 0, 0)})
    b = Sample(2.0, 2.0, {hot: PartitionSample(0, 98, 98_000), cold: PartitionSample(0, 2, 2_000),
                          idle: PartitionSample(0, 0, 0), TopicPartition("new", 0):
                          PartitionSample(0, 1, 10)})
    rates = rates_between(a, b)
    assert rates == {hot: 49_000.0, cold: 1_000.0, idle: 0.0}  # "new" was not in both
    weights = weights_from(rates, floor=0.001)
    assert weights[hot] == pytest.approx(2.94) and weights[cold] == pytest.approx(0.06)
    assert weights[idle] == 0.001  # idle still prefers a local read
    assert weights_from({hot: 0.0, cold: 0.0}) == {hot: 1.0, cold: 1.0}
    assert weights_from({}) == {}
