"""Fleet totals of one audit: what every audited group costs together and what rackwise's
best plans would save (the table's total row and ``--json``'s ``summary``).

Money and bytes are summed over the groups whose traffic was measured; a group measured in
partitions only (``--window 0``, a failed sample, observe mode's first round) is counted in
``groups_without_bytes`` and left out of the sums, so a total is never a silent 0. When no
group has bytes the money and bytes totals are ``None`` (shown ``n/a``).

Example: two measured groups paying $5.08 (best $0.00) and $0.52 (best $0.10), and one
measured without bytes -> actual $5.60, best $0.10, saving $5.50, groups_without_bytes 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.audit.model import RACK_UNKNOWN, GroupAudit
from protocol.errors import RackwiseError


class SavingUnknown(RackwiseError):
    """``--fail-above`` was asked but no group's bytes were measured: measure them first."""


@dataclass(frozen=True)
class FleetSummary:
    """Totals over the audited groups; ``None`` where no group was measured in bytes."""

    groups: int
    measured_groups: int
    groups_without_bytes: tuple[str, ...]
    members: int
    partitions: int
    cross_rack_partitions_actual: int
    cross_rack_partitions_best: int
    cross_rack_bytes_actual: float | None
    cross_rack_bytes_best: float | None
    usd_per_month_actual: float | None
    usd_per_month_best: float | None
    # the actual figures include expected values of rack-unknown groups (marked ``~``)
    expected: bool

    @property
    def saving_bytes(self) -> float | None:
        if self.cross_rack_bytes_actual is None or self.cross_rack_bytes_best is None:
            return None
        return max(0.0, self.cross_rack_bytes_actual - self.cross_rack_bytes_best)

    @property
    def saving_usd_per_month(self) -> float | None:
        if self.usd_per_month_actual is None or self.usd_per_month_best is None:
            return None
        return round(max(0.0, self.usd_per_month_actual - self.usd_per_month_best), 2)

    def to_json(self) -> dict[str, Any]:
        """The ``summary`` object of ``rackwise audit --json``."""
        return {
            "groups": self.groups,
            "measured_groups": self.measured_groups,
            "groups_without_bytes": len(self.groups_without_bytes),
            "groups_without_bytes_names": list(self.groups_without_bytes),
            "members": self.members,
            "partitions": self.partitions,
            "cross_rack_partitions_actual": self.cross_rack_partitions_actual,
            "cross_rack_partitions_best": self.cross_rack_partitions_best,
            "cross_rack_bytes_per_s_actual": self.cross_rack_bytes_actual,
            "cross_rack_bytes_per_s_best": self.cross_rack_bytes_best,
            "cross_rack_bytes_per_s_saving": self.saving_bytes,
            "usd_per_month_actual": self.usd_per_month_actual,
            "usd_per_month_best": self.usd_per_month_best,
            "usd_per_month_saving": self.saving_usd_per_month,
            "expected": self.expected,
        }


def _total(values: list[float]) -> float | None:
    return sum(values) if values else None


def summarize(audits: Sequence[GroupAudit]) -> FleetSummary:
    """Add up one audit. Money is the sum of the rows' own (rounded) figures, so the total
    row of the table is the sum of the column above it."""
    measured = sorted((a for a in audits if a.measured), key=lambda a: a.group)
    with_bytes = [a for a in measured
                  if a.cross_rack_bytes_actual is not None and a.cross_rack_bytes_best is not None]
    priced = {a.group for a in with_bytes}
    money = [a.money() for a in with_bytes]
    actual_usd = [m["actual"] for m in money if m["actual"] is not None]
    best_usd = [m["best"] for m in money if m["best"] is not None]
    return FleetSummary(
        groups=len(audits),
        measured_groups=len(measured),
        groups_without_bytes=tuple(a.group for a in measured if a.group not in priced),
        members=sum(a.members for a in audits),
        partitions=sum(a.partitions for a in audits),
        cross_rack_partitions_actual=sum(a.cross_rack_actual or 0 for a in measured),
        cross_rack_partitions_best=sum(a.cross_rack_best or 0 for a in measured),
        cross_rack_bytes_actual=_total([a.cross_rack_bytes_actual or 0.0 for a in with_bytes]),
        cross_rack_bytes_best=_total([a.cross_rack_bytes_best or 0.0 for a in with_bytes]),
        usd_per_month_actual=None if not actual_usd else round(sum(actual_usd), 2),
        usd_per_month_best=None if not best_usd else round(sum(best_usd), 2),
        expected=any(a.status == RACK_UNKNOWN for a in with_bytes),
    )


def fail_above(summary: FleetSummary, limit_usd: float) -> tuple[bool, str]:
    """``--fail-above``: whether the fleet's possible saving exceeds ``limit_usd`` $/month,
    and the one line that says so. A saving exactly at the limit does not exceed it."""
    saving = summary.saving_usd_per_month
    if saving is None:
        # Passing a check nobody could make is the silent failure this flag exists to catch.
        raise SavingUnknown(
            f"--fail-above {limit_usd:g}: the saving is unknown, no audited group's traffic "
            "was measured in bytes (use --window > 0 and check the brokers' DescribeLogDirs)")
    unmeasured = len(summary.groups_without_bytes)
    tail = (f" ({unmeasured} group{'s' if unmeasured != 1 else ''} without measured bytes "
            "not counted)") if unmeasured else ""
    if saving > limit_usd:
        return True, (f"rackwise audit: possible saving ${saving:,.2f}/month exceeds "
                      f"--fail-above ${limit_usd:,.2f}{tail}")
    return False, (f"rackwise audit: possible saving ${saving:,.2f}/month is within "
                   f"--fail-above ${limit_usd:,.2f}{tail}")
