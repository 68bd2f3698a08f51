"""The ``rackwise audit`` table: one fixed-width row per group (``--json`` is GroupAudit.to_json).

Bytes and money columns show ``-`` when traffic was not measured (``--window 0``). For a
``rack-unknown`` group the cross-rack figures are expected values (marked ``~``) and the
partitions read by rack-unknown members are shown apart (``+N?``); the advice follows.

A ``TOTAL`` row closes the table (agent.audit.summary): sums over the measured groups, money
and bytes over those measured in bytes, ``n/a`` when none was, and the possible saving in
$/month in its last column.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.audit.model import MEASURED, OK, RACK_UNKNOWN, GroupAudit
from agent.audit.summary import FleetSummary, summarize

_COLUMNS = ("GROUP", "KIND", "ASSIGNOR", "MEMBERS", "PARTITIONS", "CROSS-RACK", "BEST", "SAVING",
            "CROSS-RACK B/S", "BEST B/S", "$/MONTH", "BEST $/MONTH", "STATUS")
_RIGHT = range(3, 12)  # numeric columns are right-aligned


def assignor(a: GroupAudit) -> str:
    """The assignor a group runs, as its members or its coordinator name it: a classic
    group's protocol (``range``, ``stream`` for Kafka Streams), a KIP-848 group's
    ``assignor_name``, a streams group's (StreamsGroupDescribe v1, Kafka 4.4: ``sticky``,
    ``rackwise``). ``-`` when nobody says: a streams group on 4.2/4.3 brokers (v0 names none;
    they have only ``sticky``), or a group without members."""
    return "-" if a.protocol in ("", a.group_type) else a.protocol


def human_rate(value: float | None) -> str:
    """Bytes/s with a binary unit: ``512 B/s``, ``1.5 MiB/s``."""
    if value is None:
        return "-"
    for unit, size in (("GiB/s", 2**30), ("MiB/s", 2**20), ("KiB/s", 2**10)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B/s"


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:,.2f}"


def _row(a: GroupAudit) -> tuple[str, ...]:
    saving = a.saving_pct
    rough = "~" if a.status == RACK_UNKNOWN else ""
    if a.status == OK or a.error is None and a.advice is None:
        status = a.status
    elif a.status == RACK_UNKNOWN:
        status = f"{a.status}: {a.advice}"
    else:
        status = f"{a.status}: {a.error}"
    cross = "-" if a.cross_rack_actual is None else str(a.cross_rack_actual)
    if a.rack_unknown_partitions:
        cross += f" +{a.rack_unknown_partitions}?"
    money = a.money()
    measured = a.status in MEASURED
    return (
        a.group,
        a.kind or f"({a.group_type})",
        assignor(a),
        str(a.members),
        str(a.partitions),
        cross,
        "-" if a.cross_rack_best is None else str(a.cross_rack_best),
        "-" if saving is None else f"{saving:.1f}%",
        rough + human_rate(a.cross_rack_bytes_actual) if measured and a.bytes_per_s is not None
        else "-",
        human_rate(a.cross_rack_bytes_best) if measured else "-",
        rough + _money(money["actual"]) if money["actual"] is not None else "-",
        _money(money["best"]),
        status,
    )


def _saving_pct(s: FleetSummary) -> str:
    if s.cross_rack_bytes_actual is not None and s.cross_rack_bytes_best is not None:
        actual, best = s.cross_rack_bytes_actual, s.cross_rack_bytes_best
    elif s.measured_groups:
        actual, best = float(s.cross_rack_partitions_actual), float(s.cross_rack_partitions_best)
    else:
        return "-"
    return "0.0%" if actual <= 0 else f"{100.0 * max(0.0, actual - best) / actual:.1f}%"


def _total_row(s: FleetSummary) -> tuple[str, ...]:
    rough = "~" if s.expected else ""
    saving = s.saving_usd_per_month
    status = "saving n/a: no group's bytes measured" if saving is None else \
        f"saving {rough}{_money(saving)}/month"
    if s.groups_without_bytes and saving is not None:
        names = ", ".join(s.groups_without_bytes[:3]) + (", ..." if len(s.groups_without_bytes) > 3
                                                         else "")
        status += f"; not counted, bytes not measured: {names}"
    na = "n/a" if s.measured_groups else "-"
    return (
        "TOTAL",
        f"{s.groups} group{'' if s.groups == 1 else 's'}",
        "",
        str(s.members),
        str(s.partitions),
        str(s.cross_rack_partitions_actual) if s.measured_groups else "-",
        str(s.cross_rack_partitions_best) if s.measured_groups else "-",
        _saving_pct(s),
        na if s.cross_rack_bytes_actual is None else rough + human_rate(s.cross_rack_bytes_actual),
        na if s.cross_rack_bytes_best is None else human_rate(s.cross_rack_bytes_best),
        na if s.usd_per_month_actual is None else rough + _money(s.usd_per_month_actual),
        na if s.usd_per_month_best is None else _money(s.usd_per_month_best),
        status,
    )


def render_table(audits: Sequence[GroupAudit]) -> str:
    """A fixed-width table, one row per group, then a rule and the TOTAL row; the reason
    follows unmeasured rows."""
    rows = [_row(a) for a in audits]
    total = [_total_row(summarize(audits))] if rows else []
    widths = [max(len(c), *(len(r[i]) for r in rows + total)) if rows else len(c)
              for i, c in enumerate(_COLUMNS)]

    def line(row: tuple[str, ...], header: bool = False) -> str:
        cells = [cell.rjust(widths[i]) if i in _RIGHT and not header else cell.ljust(widths[i])
                 for i, cell in enumerate(row)]
        return "  ".join(cells[:-1] + [row[-1]]).rstrip()

    lines = [line(_COLUMNS, header=True), *(line(r) for r in rows)]
    if total:
        lines.append("  ".join("-" * w for w in widths[:-1]))
        lines.append(line(total[0]))
    else:
        lines.append("(no matching groups)")
    return "\n".join(lines)
