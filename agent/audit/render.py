"""The ``rackwise audit`` table: one fixed-width row per group (``--json`` is GroupAudit.to_json).

Bytes and money columns show ``-`` when traffic was not measured (``--window 0``). For a
``rack-unknown`` group the cross-rack figures are expected values (marked ``~``) and the
partitions read by rack-unknown members are shown apart (``+N?``); the advice follows.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.audit.model import MEASURED, OK, RACK_UNKNOWN, GroupAudit

_COLUMNS = ("GROUP", "KIND", "MEMBERS", "PARTITIONS", "CROSS-RACK", "BEST", "SAVING",
            "CROSS-RACK B/S", "BEST B/S", "$/MONTH", "BEST $/MONTH", "STATUS")
_RIGHT = range(2, 11)  # numeric columns are right-aligned


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


def render_table(audits: Sequence[GroupAudit]) -> str:
    """A fixed-width table, one row per group; the reason follows unmeasured rows."""
    rows = [_row(a) for a in audits]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(_COLUMNS)]
    lines = []
    for row in [_COLUMNS, *rows]:
        cells = [
            cell.rjust(widths[i]) if i in _RIGHT and row is not _COLUMNS else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells[:-1] + [row[-1]]).rstrip())
    if not rows:
        lines.append("(no matching groups)")
    return "\n".join(lines)
