"""The doctor's report: a table for people, a JSON document for machines.

JSON (*contract*: keys may be added, none removed)::

    {"status": "ok" | "findings" | "unreachable",
     "findings": [{"id", "severity", "subject", "problem", "fix", "details"}],
     "checked": {"bootstrap", "brokers", "broker_racks", "groups", "members",
                 "agent_group", "agent_members", "window_s", "checks"},
     "notes": ["what could not be read"], "error": null | "why unreachable"}

``status`` is ``findings`` when at least one finding is an error or a warning (exit 1);
``info`` findings alone leave it ``ok``.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from agent.doctor.checks import CHECKS
from agent.doctor.model import ERROR, INFO, WARNING, Finding, Snapshot

OK = "ok"
FINDINGS = "findings"
UNREACHABLE = "unreachable"


def status_of(findings: Sequence[Finding]) -> str:
    return FINDINGS if any(f.severity in (ERROR, WARNING) for f in findings) else OK


def checked(snap: Snapshot) -> dict[str, Any]:
    agent = snap.agent
    return {
        "bootstrap": snap.bootstrap,
        "brokers": [b.broker_id for b in snap.brokers],
        "broker_racks": list(snap.broker_racks),
        "groups": len(snap.groups),
        "members": sum(len(g.members) for g in snap.groups),
        "agent_group": agent.group_id if agent else None,
        "agent_members": agent.members if agent else None,
        "window_s": snap.window_s,
        "checks": [c.__name__.removeprefix("check_") for c in CHECKS],
    }


def render_json(snap: Snapshot, findings: Sequence[Finding]) -> str:
    doc = {"status": status_of(findings), "findings": [f.to_json() for f in findings],
           "checked": checked(snap), "notes": list(snap.notes), "error": None}
    return json.dumps(doc, indent=2, ensure_ascii=False)


def render_unreachable_json(bootstrap: str, error: str) -> str:
    return json.dumps({"status": UNREACHABLE, "findings": [], "checked": {"bootstrap": bootstrap},
                       "notes": [], "error": error}, indent=2)


def summary_line(snap: Snapshot, findings: Sequence[Finding]) -> str:
    counts = {s: sum(1 for f in findings if f.severity == s) for s in (ERROR, WARNING, INFO)}
    said = ", ".join(f"{n} {s}{'s' if n != 1 and s != INFO else ''}"
                     for s, n in counts.items())
    c = checked(snap)
    groups = f"{c['groups']} group{'s' if c['groups'] != 1 else ''}"
    return (f"rackwise doctor: {len(c['brokers'])} brokers, {groups} "
            f"({c['members']} members) checked: {said} -> {status_of(findings)}")


def render_table(snap: Snapshot, findings: Sequence[Finding], width: int = 120) -> str:
    """One row per finding: ID, SEVERITY, SUBJECT, then the problem and ``fix:`` wrapped in
    the last column; a summary line closes it."""
    head = ("ID", "SEVERITY", "SUBJECT")
    rows = [(f.id, f.severity, f.subject) for f in findings]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(head)]
    indent = sum(widths) + 2 * len(widths)
    text_width = max(40, width - indent)
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  PROBLEM / FIX"]
    for f, row in zip(findings, rows, strict=True):
        body = (_wrap(f.problem, text_width)
                + _wrap("fix: " + f.fix, text_width, subsequent_indent="     "))
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "  "
                     + body[0])
        lines += [" " * indent + b for b in body[1:]]
    if not findings:
        lines.append("(no findings)")
    lines += [f"note: {n}" for n in snap.notes]
    lines.append(summary_line(snap, findings))
    return "\n".join(lines)


def _wrap(text: str, width: int, subsequent_indent: str = "") -> list[str]:
    # class names and settings stay whole, so they can be copied from the table
    return textwrap.wrap(text, width, subsequent_indent=subsequent_indent,
                         break_long_words=False, break_on_hyphens=False) or [""]
