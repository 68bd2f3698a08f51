"""The ``rackwise audit`` table: one fixed-width row per group (``--json`` is GroupAudit.to_json)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.audit.model import OK, GroupAudit

_COLUMNS = ("GROUP", "KIND", "MEMBERS", "PARTITIONS", "CROSS-RACK", "BEST", "SAVING", "STATUS")


def render_table(audits: Sequence[GroupAudit]) -> str:
    """A fixed-width table, one row per group; the reason follows unmeasured rows."""
    rows = []
    for a in audits:
        saving = a.saving_pct
        status = a.status if a.error is None or a.status == OK else f"{a.status}: {a.error}"
        rows.append((
            a.group,
            a.kind or f"({a.group_type})",
            str(a.members),
            str(a.partitions),
            "-" if a.cross_rack_actual is None else str(a.cross_rack_actual),
            "-" if a.cross_rack_best is None else str(a.cross_rack_best),
            "-" if saving is None else f"{saving:.1f}%",
            status,
        ))
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(_COLUMNS)]
    lines = []
    for row in [_COLUMNS, *rows]:
        cells = [
            cell.rjust(widths[i]) if 2 <= i <= 6 and row is not _COLUMNS else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells[:-1] + [row[-1]]).rstrip())
    if not rows:
        lines.append("(no matching groups)")
    return "\n".join(lines)
