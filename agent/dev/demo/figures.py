"""What the demo reports: its plans as lines, and the metrics job's figures as summary.json
and a table.

Per group the demo reports its latest plan before and after the replica move: partitions,
cross-rack partitions, traffic cost and the lower bound (missing when the plan had none);
and, per group that fetched data, plan vs wire (agent/dev/demo/fetchwindow.py): the cross-rack
bytes its plan predicts against those its clients measured.
Nothing here talks to Kafka or Spark: agent.dev.demo.run hands in the rows and prints the lines.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agent.dev.demo.fetchwindow import holds
from agent.dev.demo.layout import Names


def plan_line(group: str, plan: Any) -> str:
    """One published plan in a line: each rack's partitions and the cross-rack count."""
    owned = "  ".join(
        f"{m.rack}:{','.join(str(p.partition) for p in m.partitions)}"
        for m in sorted(plan.members, key=lambda m: m.rack or ""))
    return (f"{group} generation {plan.generation} ({plan.assignor}): partitions by "
            f"rack {owned}; cross-rack {plan.summary.cross_rack_partitions} of "
            f"{plan.summary.partitions}")


def latest_figures(rows: Any, group: str) -> dict[str, Any] | None:
    """The figures of ``group``'s newest plan among the metrics job's plan rows (a pandas
    frame), or None when the job wrote no row for it."""
    mine = rows[rows["group_id"] == group]
    if mine.empty:
        return None
    latest = mine.loc[mine["generation"].idxmax()]
    return {
        "generation": int(latest["generation"]),
        "partitions": int(latest["partitions"]),
        "cross_rack_partitions": int(latest["cross_rack_partitions"]),
        "traffic_cost": _num(latest["traffic_cost"]),
        "lower_bound": _num(latest["lower_bound"]),
    }


def write_summary(names: Names, bootstrap: str, out: Path, before: dict[str, Any],
                  after: dict[str, Any], report: Path, agent_pid: int,
                  members: list[Any], wire: dict[str, dict[str, Any]],
                  plug_in_groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The run's summary dict, also written to ``out``/summary.json. ``wire``: phase ("before",
    "after") -> group -> plan-vs-wire figures; ``plug_in_groups``: group -> kind, status
    (measured, skipped, failed) and the reason when not measured."""
    kinds = {names.consumer_group: "consumer", names.streams_group: "streams"}
    summary = {
        "bootstrap": bootstrap,
        "plans_topic": names.plans,
        "metrics_topic": names.metrics,
        "topics": [names.orders, names.clicks],
        "groups": {g: {"kind": kinds[g], "before": before[g], "after": after[g]}
                   for g in kinds},
        "records_read": {g: sum(m.records for m in members if m.follower.group_id == g)
                         for g in kinds},
        "wire": wire,
        "plug_in_groups": plug_in_groups,
        "parquet": str(out / "crt"),
        "report": str(report),
        "agent_pid": agent_pid,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def figure_lines(summary: dict[str, Any], written: int, summary_path: Path) -> list[str]:
    """The printed table of ``summary`` and the lines after it (``written``: records per topic)."""
    names = [*summary["groups"], *(g for phase in summary["wire"].values() for g in phase)]
    width = max(len(g) for g in names) + 2
    lines = [f"    {'group':<{width}}{'kind':<10}{'plan':<16}{'cross-rack partitions':>21}"
             f"{'traffic cost':>14}{'lower bound':>13}"]
    for group, g in summary["groups"].items():
        for when in ("before", "after"):
            f = g[when]
            plan = f"{when} (gen {f['generation']})"
            crossing = f"{f['cross_rack_partitions']} of {f['partitions']}"
            lines.append(f"    {group:<{width}}{g['kind']:<10}{plan:<16}{crossing:>21}"
                         f"{_fmt(f['traffic_cost']):>14}{_fmt(f['lower_bound']):>13}")
    read = ", ".join(f"{g} {n}" for g, n in summary["records_read"].items())
    windows = sum(f["records_written"] for phase in summary["wire"].values()
                  for g, f in phase.items() if g in summary["records_read"]) // max(
                      1, len(summary["records_read"]))
    lines.append(f"    records read by the members: {read} ({written + windows} written to each "
                 f"topic, {windows} of them in the plan-vs-wire windows; a new owner starts "
                 "at the last commit, so some may be read twice)")
    lines.append("    plan vs wire: cross-rack bytes the plan predicts (bytes written to the "
                 "partitions it reads across racks) and those the clients measured (bytes "
                 "received from a broker in another rack):")
    lines.append(f"    {'group':<{width}}{'phase':<8}{'gen':>6}{'cross-rack':>12}"
                 f"{'planned B':>12}{'measured B':>12}{'received B':>12}  verdict")
    for when, groups in summary["wire"].items():
        for group, f in groups.items():
            crossing = f"{f['cross_rack_partitions']} of {f['partitions']}"
            lines.append(f"    {group:<{width}}{when:<8}{f['plan_generation']:>6}{crossing:>12}"
                         f"{f['planned_cross_bytes']:>12,}{f['measured_cross_bytes']:>12,}"
                         f"{f['received_bytes']:>12,}  "
                         f"{'holds' if holds(f) else 'DOES NOT HOLD'} ({f['kind']})")
    for group, o in summary["plug_in_groups"].items():
        if o["status"] != "measured":
            lines.append(f"    {group} ({o['kind']}): {o['status']}: {o['reason']}")
    lines.append(f"    report: {summary['report']}")
    lines.append(f"    figures as JSON: {summary_path}")
    return lines


def _num(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f  # NaN: the plan had no lower bound


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
