"""The CRT report: PNG charts and one static HTML page from the metrics job's Parquet tables.

Reads with pandas/pyarrow (no Spark, no JVM): the tables are small (rows per plan, not per
partition). Readers' rule for duplicates, the same as metrics.sinks: one record per
(group_id, generation), the one from the newest batch and highest offset.

Charts:
  crt_over_time.png   cross-rack partitions of each group, plan by plan, over event time
  rack_pairs.png      heat map source rack -> member rack of the (weighted) partitions,
                      for each group's worst (most cross-rack) and latest plan, summed over groups
  actual_vs_best.png  each group's latest traffic cost next to its lower bound (after its
                      first plan's, when that differed)
  cost_per_group.png  $/month of each group's latest plan with measured traffic: what it
                      reads across racks, next to the least any plan with the same balance
                      would (a rack-unknown group's figure is expected, its worst case drawn);
                      with no traffic anywhere, cross-rack partitions first -> latest instead
  rack_pair_bytes.png cross-rack bytes/s per rack pair (source rack -> member rack), summed
                      over each group's latest plan with measured traffic

Every chart either draws figures or says in the picture why there are none: tables written
before traffic was measured have no bytes columns, a plan may carry no bytes, idle topics read
0 B/s (the money charts: metrics.costcharts).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from metrics.costcharts import chart_cost_per_group, chart_rack_pair_bytes, note, rate  # noqa: E402
from protocol.errors import RackwiseError  # noqa: E402

__all__ = ["ReportData", "ReportError", "chart_actual_vs_best", "chart_cost_per_group",
           "chart_crt_over_time", "chart_rack_pair_bytes", "chart_rack_pairs", "load", "render",
           "render_page"]


class ReportError(RackwiseError):
    """The report cannot be made from the given input; the message says what to run first."""


@dataclass
class ReportData:
    plans: pd.DataFrame       # one row per (group_id, generation)
    pairs: pd.DataFrame       # rack pairs of exactly those plan records
    rejected: int


def _read(folder: Path) -> pd.DataFrame | None:
    if not folder.exists() or not any(folder.glob("batch_id=*/*.parquet")):
        return None
    df = pd.read_parquet(folder)
    df["batch_id"] = df["batch_id"].astype("int64")
    return df


def load(input_dir: Path) -> ReportData:
    plans = _read(input_dir / "plan_metrics")
    if plans is None or plans.empty:
        raise ReportError(f"no plan metrics under {input_dir}/plan_metrics: run "
                          "`rackwise metrics run --available-now --output DIR` first")
    plans = (plans.sort_values(["batch_id", "source_offset"])
             .drop_duplicates(["group_id", "generation"], keep="last")
             .sort_values(["group_id", "generation"]).reset_index(drop=True))
    # Observe mode publishes what a group runs (reason "observed") and rackwise's best plan for
    # it (reason "recommended"). Only the first is what the group costs; the best it could
    # cost is already each plan's lower_bound, so recommendations are left out of the report.
    plans = plans[plans["reason"] != "recommended"].reset_index(drop=True)
    if plans.empty:
        raise ReportError(f"only observe-mode recommendations under {input_dir}/plan_metrics")
    pairs = _read(input_dir / "rack_pairs")
    if pairs is None:
        pairs = pd.DataFrame(columns=["group_id", "generation", "source_partition",
                                      "source_offset", "batch_id", "source_rack",
                                      "member_rack", "cross_rack", "partitions", "weight"])
    # tables of an older job have no bytes or money: the same columns, empty
    for frame, columns in ((plans, _MONEY_COLUMNS), (pairs, _PAIR_BYTES)):
        for column in columns:
            if column not in frame.columns:
                frame[column] = np.nan
    keys = ["group_id", "generation", "source_partition", "source_offset", "batch_id"]
    pairs = pairs.merge(plans[keys], on=keys, how="inner")
    rejected_df = _read(input_dir / "rejected")
    rejected = 0 if rejected_df is None else int(
        rejected_df.drop_duplicates(["source_topic", "source_partition", "source_offset"]).shape[0])
    return ReportData(plans=plans, pairs=pairs, rejected=rejected)


_MONEY_COLUMNS = ("bytes_per_s", "cross_rack_bytes_per_s", "cross_rack_bytes_per_s_worst",
                  "lower_bound_bytes_per_s", "usd_per_month", "usd_per_month_best",
                  "usd_per_month_worst", "rack_unknown_members")
_PAIR_BYTES = ("bytes_per_s", "cross_rack_bytes_per_s")
MAX_GROUPS_OVER_TIME = 12


def chart_crt_over_time(plans: pd.DataFrame, path: Path) -> Path:
    """One small panel per group, sharing the time axis: lines of several groups on one
    axis hide each other (many sit at 0), a panel each keeps every group readable."""
    peak = plans.groupby("group_id")["cross_rack_partitions"].max()
    # the groups with the most cross-rack partitions first; ties by name
    ranked = sorted(peak.index, key=lambda g: (-peak[g], str(g)))
    shown = ranked[:MAX_GROUPS_OVER_TIME]
    rows = len(shown)
    fig, axes = plt.subplots(rows, 1, figsize=(9, 0.6 + 1.35 * rows), dpi=110, sharex=True,
                             squeeze=False)
    start, end = plans["event_time"].min(), plans["event_time"].max()
    pad = max((end - start) * 0.04, pd.Timedelta(seconds=10))
    colours = plt.get_cmap("tab10")
    for i, (ax, group) in enumerate(zip(axes[:, 0], shown, strict=True)):
        mine = plans[plans["group_id"] == group].sort_values("event_time")
        times = list(mine["event_time"]) + [end + pad]  # hold the last value to the edge
        values = list(mine["cross_rack_partitions"]) + [mine["cross_rack_partitions"].iloc[-1]]
        colour = colours(i % 10)
        ax.step(times, values, where="post", color=colour, linewidth=1.6)
        ax.plot(mine["event_time"], mine["cross_rack_partitions"], "o", color=colour,
                markersize=4)
        last = mine.iloc[-1]
        ax.annotate(f"{last['cross_rack_partitions']} of {last['partitions']} "
                    f"(gen {last['generation']})", xy=(1.0, 0.5), xycoords="axes fraction",
                    xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
        ax.set_ylabel(str(group), rotation=0, ha="right", va="center", fontsize=9)
        top = max(1, int(mine["cross_rack_partitions"].max()))
        ax.set_ylim(-0.05 * top, top * 1.25)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=3, integer=True))
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlim(start - pad, end + pad)
    locator = mdates.AutoDateLocator()  # type: ignore[no-untyped-call]
    axes[-1, 0].xaxis.set_major_locator(locator)
    axes[-1, 0].xaxis.set_major_formatter(
        mdates.ConciseDateFormatter(locator)  # type: ignore[no-untyped-call]
    )
    axes[-1, 0].set_xlabel("plan created at (UTC)")
    title = "Cross-rack partitions of each plan, by group (right: latest)"
    if len(ranked) > rows:
        title += f"\n{rows} of {len(ranked)} groups shown, the most cross-rack first"
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def _pair_matrix(pairs: pd.DataFrame, racks: list[str]) -> np.ndarray:
    matrix = np.zeros((len(racks), len(racks)))
    for row in pairs.itertuples():
        matrix[racks.index(row.source_rack), racks.index(row.member_rack)] += row.weight
    return matrix


def chart_rack_pairs(plans: pd.DataFrame, pairs: pd.DataFrame, path: Path) -> Path:
    # Left: each group's worst plan (most cross-rack partitions, the earliest of equals), so a
    # dashboard shows what the cluster cost at its worst next to what it costs now.
    worst = (plans.sort_values(["group_id", "cross_rack_partitions", "generation"],
                               ascending=[True, False, True])
             .groupby("group_id")["generation"].first())
    latest = plans.groupby("group_id")["generation"].max()
    panels = [("latest plan of each group", latest)]
    if not worst.equals(latest):
        panels.insert(0, ("worst plan of each group", worst))
    racks = sorted(set(pairs["source_rack"]) | set(pairs["member_rack"])) or ["-"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6), dpi=110,
                             squeeze=False)
    matrices = []
    empty = []
    for _, gens in panels:
        chosen = pairs.merge(gens.rename("generation").reset_index(), on=["group_id", "generation"])
        matrices.append(_pair_matrix(chosen, racks))
        empty.append(chosen.empty)
    # The colour scale is for cross-rack reads only; the diagonal (local reads) is drawn apart.
    off_diagonal = [np.where(np.eye(len(racks), dtype=bool), np.nan, m) for m in matrices]
    top = max(float(np.nanmax(m)) if np.isfinite(m).any() else 0.0 for m in off_diagonal) or 1.0
    cmap = plt.get_cmap("Oranges").with_extremes(bad="#dcefe0")
    image = None
    for ax, (title, _), matrix, shown, nothing in zip(axes[0], panels, matrices, off_diagonal,
                                                      empty, strict=True):
        if nothing:  # an empty heat map must not read as "all local"
            ax.set_title(f"{title}\nno rack pairs recorded for these plans", fontsize=10)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_box_aspect(1)  # the size of its neighbours' square heat maps
            ax.text(0.5, 0.5, "the metrics job wrote no rack_pairs\nrows for these plans",
                    ha="center", va="center", fontsize=9, transform=ax.transAxes)
            continue
        image = ax.imshow(shown, cmap=cmap, vmin=0, vmax=top)
        crt = matrix.sum() - np.trace(matrix)
        ax.set_title(f"{title}\ncross-rack: {crt:g} of {matrix.sum():g}", fontsize=10)
        ax.set_xticks(range(len(racks)), racks)
        ax.set_yticks(range(len(racks)), racks)
        ax.set_xlabel("member rack (reads)")
        ax.set_ylabel("source rack (data read from)")
        for i in range(len(racks)):
            for j in range(len(racks)):
                value = matrix[i, j]
                label = f"{value:g}" + ("\nlocal" if i == j else "")
                ax.text(j, i, label, ha="center", va="center", fontsize=9,
                        color="white" if i != j and value > top * 0.6 else "black")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8,
                     label="cross-rack partitions (weighted)")
    fig.suptitle("Rack pairs: where assigned partitions are read from", fontsize=11)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def chart_actual_vs_best(plans: pd.DataFrame, path: Path) -> Path:
    """Each group's latest traffic cost next to its lower bound (weighted partitions), after
    its first plan's when that differed (before -> after)."""
    ordered = plans.sort_values("generation").groupby("group_id", sort=True)
    latest = ordered.tail(1).sort_values("group_id")
    first = ordered.head(1).set_index("group_id").loc[latest["group_id"]]
    x = np.arange(len(latest))
    fig, ax = plt.subplots(figsize=(max(7.0, 2.0 * len(latest) + 2), 4.2), dpi=110)
    actual = latest["traffic_cost"].to_numpy(dtype=float)
    best = latest["lower_bound"].astype(float).fillna(np.nan).to_numpy()
    before = first["traffic_cost"].to_numpy(dtype=float)
    changed = (first["generation"].to_numpy() != latest["generation"].to_numpy()) & \
        (before != actual)
    if changed.any():
        ax.bar(x[changed] - 0.27, before[changed], 0.27, label="first plan", color="#bbbbbb",
               hatch="//", edgecolor="white")
        for k in np.flatnonzero(changed).tolist():
            ax.text(k - 0.27, before[k], f"{before[k]:g}", ha="center", va="bottom", fontsize=8)
    ax.bar(x, actual, 0.27, label="latest plan's traffic cost", color="#d95f02")
    ax.bar(x + 0.27, np.nan_to_num(best), 0.27, label="best (lower bound)", color="#1b9e77")
    for i, (a, b) in enumerate(zip(actual, best, strict=True)):
        ax.text(i, a, f"{a:g}", ha="center", va="bottom", fontsize=8)
        ax.text(i + 0.27, 0 if np.isnan(b) else b, "n/a" if np.isnan(b) else f"{b:g}",
                ha="center", va="bottom", fontsize=8)
    labels = [f"{g}\n(gen {f} → {n})" if c else f"{g}\n(gen {n})" for g, f, n, c in zip(
        latest["group_id"], first["generation"], latest["generation"], changed, strict=True)]
    ax.set_xticks(x, labels)
    ax.set_ylabel("traffic cost")
    # Costs are never negative; an all-zero chart still gets a readable 0..1 axis.
    highest = float(np.nanmax(np.concatenate([actual, np.nan_to_num(best), before]))) \
        if len(actual) else 0.0
    ax.set_ylim(0, max(1.0, highest * 1.15))
    ax.set_title("Traffic cost of each group's latest plan vs the best reachable")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    if len(actual) and not np.nan_to_num(actual).any():  # 0 bars look like a failed chart
        note(fig, ["Every group's latest plan reads all its partitions within its own racks: "
                   "traffic cost 0, which is also its lower bound."])
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


# "assignor" is the plan's: what a plug-in computed it with (a streams group's plan from the
# brokers' KIP-1357 plug-in: kind streams, assignor rackwise), or an observed group's own
_COLUMNS = [("group_id", "group"), ("generation", "generation"), ("kind", "kind"),
            ("assignor", "assignor"), ("reason", "reason"), ("partitions", "partitions"),
            ("cross_rack_partitions", "cross-rack"), ("cross_rack_ratio", "ratio"),
            ("traffic_cost", "traffic cost"), ("lower_bound", "lower bound"),
            ("load_spread", "load spread"), ("moved_partitions", "moved"),
            ("withheld_partitions", "withheld"),
            ("standby_rack_diversity", "standby rack diversity"),
            ("cross_rack_bytes_per_s", "cross-rack B/s"), ("usd_per_month", "$/month"),
            ("usd_per_month_best", "best $/month")]


def _cell(value: object, column: str = "") -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if column.startswith("usd_"):
        return f"${float(value):,.2f}"  # type: ignore[arg-type]
    if column.endswith("bytes_per_s"):
        return rate(float(value))  # type: ignore[arg-type]
    if isinstance(value, float):
        return f"{value:.3g}"
    return html.escape(str(value))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def render_page(data: ReportData, out: Path, charts: list[Path]) -> Path:
    latest = data.plans.sort_values("generation").groupby("group_id", sort=True).tail(1)
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in _COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(row.get(col), col)}</td>" for col, _ in _COLUMNS) + "</tr>"
        for _, row in latest.sort_values("group_id").iterrows())
    images = "".join(f'<figure><img src="{html.escape(p.name)}" alt="{html.escape(p.stem)}">'
                     f"</figure>" for p in charts)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rackwise: cross-rack traffic report</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
figure{{margin:1.5em 0}}img{{max-width:100%}}</style></head>
<body><h1>Cross-rack traffic (CRT) report</h1>
<p>{_count(len(data.plans), "plan")} of {_count(latest.shape[0], "group")};
{_count(data.rejected, "malformed plan record")} set aside.</p>
<h2>Latest plan of each group</h2>
<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>
<h2>Charts</h2>{images}
</body></html>
"""
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def render(input_dir: str | Path, out: str | Path) -> Path:
    """Charts and index.html for the metrics under ``input_dir``; returns the HTML's path."""
    input_dir, out = Path(input_dir), Path(out)
    data = load(input_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = [
        chart_crt_over_time(data.plans, out / "crt_over_time.png"),
        chart_rack_pairs(data.plans, data.pairs, out / "rack_pairs.png"),
        chart_actual_vs_best(data.plans, out / "actual_vs_best.png"),
        chart_cost_per_group(data.plans, out / "cost_per_group.png"),
        chart_rack_pair_bytes(data.plans, data.pairs, out / "rack_pair_bytes.png"),
    ]
    return render_page(data, out, charts)
