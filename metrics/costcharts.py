"""The report's money and bytes charts (cost_per_group.png, rack_pair_bytes.png).

Plans carry bytes only once traffic has been sampled twice, and a topic nobody writes to
reads 0 B/s: a group's latest plan may have no figure to draw (after `make demo`
the cost chart once showed four $0.00 bars and said nothing). So every chart here either
draws figures or says, in the picture, why there are none, group by group:

* a group's latest plan with measured traffic > 0 is drawn (actual vs best $/month), with
  its first such plan before it when that is an older generation (before → after);
* when that plan is not the latest, the chart says what the latest has (no measured bytes,
  or 0 B/s measured: idle when sampled);
* when no group has any plan with traffic, cost_per_group.png shows what there is instead,
  cross-rack partitions of each group's first and latest plan, and says why.

Example: a group planned at gen 2 with 3 MiB/s measured ($150/month, best $0) and re-planned
at gen 5 with no bytes: its bars are gen 2's, labelled "latest gen 5: no measured bytes".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

NOT_MEASURED = ("no plan with measured traffic yet: plans carry bytes once the agent or the "
                "audit samples traffic (docs/traffic.md)")
IDLE = ("every plan with measured traffic read 0 B/s: the topics were idle when traffic was "
        "sampled, so there is nothing across racks to price (docs/traffic.md)")
COST_TITLE = "What each group's cross-rack reads cost per month: actual vs best"
PAIR_TITLE = "Cross-rack bytes/s per rack pair"


def rate(value: float) -> str:
    """Bytes/s with a binary unit: ``512 B/s``, ``1.5 MiB/s``."""
    for unit, size in (("GiB/s", 2**30), ("MiB/s", 2**20), ("KiB/s", 2**10)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B/s"


def _money(value: float, bytes_per_s: float) -> str:
    # a rate too small for a cent still crossed racks: never print it as nothing
    return "<$0.01" if round(value, 2) == 0 and bytes_per_s > 0 else f"${value:,.2f}"


def _has_traffic(plans: pd.DataFrame) -> pd.Series:
    return plans["usd_per_month"].notna() & (plans["bytes_per_s"].fillna(0) > 0)


@dataclass(frozen=True)
class GroupCost:
    """One group's figures for the cost chart, and why its latest plan has none."""

    group: str
    latest: pd.Series             # the group's latest plan
    first: pd.Series              # its first plan (for partitions before → after)
    priced: pd.Series | None      # its latest plan with measured traffic > 0
    before: pd.Series | None      # its first plan with traffic > 0, when older than ``priced``
    measured: int                 # how many of its plans carry bytes at all (0 B/s included)

    @property
    def why(self) -> str | None:
        """Why the latest plan's $ are not drawn (None when they are)."""
        latest = self.latest
        if self.priced is not None and self.priced["generation"] == latest["generation"]:
            return None
        gen = int(latest["generation"])
        if pd.notna(latest["usd_per_month"]):
            return f"latest gen {gen}: 0 B/s measured (idle when sampled)"
        if self.priced is not None:
            return f"latest gen {gen}: no measured bytes"
        if self.measured:
            return f"latest gen {gen}: no measured bytes; earlier plans measured 0 B/s (idle)"
        first = int(self.first["generation"])
        gens = f"gen {gen}" if first == gen else f"gens {first}-{gen}"
        return f"none of its plans ({gens}) has measured bytes"


def group_costs(plans: pd.DataFrame) -> list[GroupCost]:
    """Each group's plans in generation order, reduced to what the cost chart draws."""
    out = []
    for group, mine in sorted(plans.groupby("group_id"), key=lambda kv: str(kv[0])):
        mine = mine.sort_values("generation")
        with_traffic = mine[_has_traffic(mine)]
        priced = None if with_traffic.empty else with_traffic.iloc[-1]
        before = None if len(with_traffic) < 2 else with_traffic.iloc[0]
        out.append(GroupCost(str(group), mine.iloc[-1], mine.iloc[0], priced, before,
                             int(mine["usd_per_month"].notna().sum())))
    return out


def note(fig: Figure, lines: list[str]) -> None:
    """Text under the plot (saved with ``bbox_inches="tight"``, which takes it in)."""
    if lines:
        fig.text(0.01, -0.01, "\n".join(lines), ha="left", va="top", fontsize=8,
                 color="#444444", wrap=True)


def cost_figure(plans: pd.DataFrame) -> Figure:
    """$/month per group (before → after when it changed), or partitions and the reason."""
    costs = group_costs(plans)
    drawn = [c for c in costs if c.priced is not None]
    if not drawn:
        return _partitions_figure(costs)
    unshown = [f"{c.group}: {c.why}" for c in costs if c.priced is None]
    notes = [f"not drawn: {'; '.join(unshown)}"] if unshown else []
    fig, ax = plt.subplots(figsize=(max(7.5, 2.2 * len(drawn) + 2), 4.6), dpi=110)
    x = np.arange(len(drawn))
    width = 0.27
    tops = []
    labelled: set[str] = set()
    for i, c in enumerate(drawn):
        p = c.priced
        assert p is not None
        # (x, $/month, bytes/s, legend entry, colour, hatch)
        bars: list[tuple[float, float, float, str, str, str | None]] = []
        if c.before is not None:
            b = c.before
            bars.append((i - width, float(b["usd_per_month"]), float(b["bytes_per_s"]),
                         "first plan with traffic", "#bbbbbb", "//"))
        bars.append((i, float(p["usd_per_month"]), float(p["bytes_per_s"]),
                     "actual $/month", "#d95f02", None))
        best = p["usd_per_month_best"]
        if pd.notna(best):
            bars.append((i + width, float(best), float(p["lower_bound_bytes_per_s"] or 0.0),
                         "best (same balance)", "#1b9e77", None))
        for xpos, value, bytes_per_s, label, colour, hatch in bars:
            ax.bar(xpos, value, width, color=colour, hatch=hatch, edgecolor="white",
                   label=None if label in labelled else label)
            labelled.add(label)
            ax.text(xpos, value, _money(value, bytes_per_s), ha="center", va="bottom",
                    fontsize=8)
            tops.append(value)
        worst = p["usd_per_month_worst"]
        if (p["rack_unknown_members"] or 0) > 0 and pd.notna(worst):
            ax.errorbar([i + width * 0.3], [float(p["usd_per_month"])],  # clear of the label
                        yerr=[[0.0], [float(worst) - float(p["usd_per_month"])]], fmt="none",
                        ecolor="black", capsize=4,
                        label=None if "worst" in labelled else "worst case (rack-unknown)")
            labelled.add("worst")
            tops.append(float(worst))
        if c.why:
            ax.annotate(c.why, xy=(i, 0), xytext=(0, -34), textcoords="offset points",
                        ha="center", va="top", fontsize=8, color="#b2182b",
                        annotation_clip=False)
    ax.set_xticks(x, [_gens(c) for c in drawn])
    ax.set_xlim(-0.7, len(drawn) - 0.3)  # one group's bars as wide as several groups'
    ax.set_ylabel("$ per month")
    ax.set_ylim(0, max(1.0, max(tops, default=0.0) * 1.25))
    ax.set_title(COST_TITLE)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    note(fig, notes)
    fig.tight_layout(rect=(0, 0.06 * len(notes), 1, 1))
    return fig


def _gens(c: GroupCost) -> str:
    assert c.priced is not None
    gens = f"gen {int(c.priced['generation'])}"
    if c.before is not None:
        gens = f"gen {int(c.before['generation'])} → {int(c.priced['generation'])}"
    return f"{c.group}\n({gens})"


def _span(c: GroupCost) -> str:
    first, latest = int(c.first["generation"]), int(c.latest["generation"])
    return f"gen {latest}" if first == latest else f"gen {first} → {latest}"


def _partitions_figure(costs: list[GroupCost]) -> Figure:
    """No $ to draw: each group's cross-rack partitions, first plan → latest, and why."""
    reason = IDLE if any(c.measured for c in costs) else NOT_MEASURED
    fig, ax = plt.subplots(figsize=(max(7.5, 1.8 * len(costs) + 2), 5.0), dpi=110)
    x = np.arange(len(costs))
    first = [int(c.first["cross_rack_partitions"]) for c in costs]
    latest = [int(c.latest["cross_rack_partitions"]) for c in costs]
    ax.bar(x - 0.2, first, 0.4, color="#bbbbbb", hatch="//", edgecolor="white",
           label="first plan")
    ax.bar(x + 0.2, latest, 0.4, color="#d95f02", label="latest plan")
    for i, c in enumerate(costs):
        ax.text(i - 0.2, first[i], f"{first[i]} of {int(c.first['partitions'])}", ha="center",
                va="bottom", fontsize=8)
        ax.text(i + 0.2, latest[i], f"{latest[i]} of {int(c.latest['partitions'])}",
                ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [f"{c.group}\n({_span(c)})" for c in costs])
    ax.set_xlim(-0.7, len(costs) - 0.3)
    ax.set_ylabel("cross-rack partitions")
    ax.set_ylim(0, max(1, *first, *latest) * 1.25)
    ax.set_title(f"{COST_TITLE}\nno $ to show; cross-rack partitions instead, first → latest plan",
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    note(fig, [f"Why no $/month: {reason}.", *(f"  {c.group}: {c.why}" for c in costs)])
    return fig


def chart_cost_per_group(plans: pd.DataFrame, path: Path) -> Path:
    """cost_per_group.png (:func:`cost_figure`)."""
    return _save(cost_figure(plans), path)


def _empty_figure(title: str, note: str) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 2.2), dpi=110)
    ax.axis("off")
    ax.set_title(title)
    ax.text(0.5, 0.5, note, ha="center", va="center", fontsize=10, wrap=True)
    return fig


def rack_pair_bytes_figure(plans: pd.DataFrame, pairs: pd.DataFrame) -> Figure:
    """Cross-rack bytes/s per (source rack, member rack), over each group's latest plan with
    measured traffic > 0; the title names the groups for which that is not the latest."""
    costs = [c for c in group_costs(plans) if c.priced is not None]
    if not costs:
        idle = plans["usd_per_month"].notna().any()
        return _empty_figure(PAIR_TITLE, IDLE if idle else NOT_MEASURED)
    chosen_gens = pd.DataFrame({"group_id": [c.group for c in costs],
                                "generation": [c.priced["generation"] for c in costs
                                               if c.priced is not None]})
    chosen = pairs.merge(chosen_gens, on=["group_id", "generation"])
    chosen = chosen[chosen["cross_rack_bytes_per_s"].notna()]
    if chosen.empty:
        return _empty_figure(PAIR_TITLE, "the plans with traffic have no rack pairs in the "
                                         "rack_pairs table: run the metrics job again")
    racks = sorted(set(chosen["source_rack"]) | set(chosen["member_rack"]))
    matrix = np.zeros((len(racks), len(racks)))
    for row in chosen.itertuples():
        matrix[racks.index(row.source_rack), racks.index(row.member_rack)] += \
            row.cross_rack_bytes_per_s
    fig, ax = plt.subplots(figsize=(5.8, 5.2), dpi=110)
    image = ax.imshow(matrix, cmap=plt.get_cmap("Oranges"), vmin=0, vmax=max(1.0, matrix.max()))
    for i in range(len(racks)):
        for j in range(len(racks)):
            ax.text(j, i, rate(matrix[i, j]), ha="center", va="center", fontsize=9,
                    color="white" if matrix[i, j] > 0.6 * matrix.max() > 0 else "black")
    ax.set_xticks(range(len(racks)), racks)
    ax.set_yticks(range(len(racks)), racks)
    ax.set_xlabel("member rack (reads; 'unknown': no client.rack)")
    ax.set_ylabel("source rack (data read from)")
    older = [f"{c.group} gen {int(c.priced['generation'])} (latest {int(c.latest['generation'])})"
             for c in costs if c.why and c.priced is not None]
    title = f"{PAIR_TITLE} (latest plan with traffic of each group)\ntotal {rate(matrix.sum())}"
    if matrix.sum() == 0:
        title += ": every group reads within its racks"
    ax.set_title(title, fontsize=10)
    bar = fig.colorbar(image, ax=ax, shrink=0.8, label="bytes/s across racks")
    bar.formatter = FuncFormatter(lambda v, _pos: rate(v))
    bar.update_ticks()
    note(fig, [f"older than the latest plan, which has no traffic: {', '.join(older)}"]
          if older else [])
    return fig


def chart_rack_pair_bytes(plans: pd.DataFrame, pairs: pd.DataFrame, path: Path) -> Path:
    """rack_pair_bytes.png (:func:`rack_pair_bytes_figure`)."""
    return _save(rack_pair_bytes_figure(plans, pairs), path)


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path
