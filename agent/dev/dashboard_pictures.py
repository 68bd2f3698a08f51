"""Pictures of the Grafana dashboard for docs/operating.md, drawn from a live Prometheus.

Developer tooling (no Grafana needed): reads deploy/grafana/dashboards/rackwise.json, runs each
panel's own queries over a time range with Prometheus' ``/api/v1/query_range`` and draws one
PNG per dashboard row (``dashboard-<row>.png``), one subplot per panel, so the pictures show
exactly what the dashboard's queries return. tests/integration/test_dashboard_live.py calls
:func:`draw` at the end of its run when RACKWISE_DASHBOARD_PICTURES names a folder; by hand::

    python -m agent.dev.dashboard_pictures --prometheus http://127.0.0.1:9090 --minutes 15

Needs matplotlib (the ``spark`` extra, which ``make setup`` installs).
"""

from __future__ import annotations

import argparse
import json
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "rackwise.json"
PICTURES = ROOT / "docs" / "images"
# Grafana's own variables the queries use, and what stands in for them outside Grafana.
_UNITS = {"currencyUSD": "$ / month", "Bps": "bytes/s", "s": "seconds", "reqps": "requests/s",
          "short": ""}


@dataclass(frozen=True)
class Target:
    expr: str
    legend: str


@dataclass(frozen=True)
class Panel:
    row: str
    title: str
    unit: str
    targets: tuple[Target, ...]


def panels(dashboard: Path = DASHBOARD) -> list[Panel]:
    """Every panel with queries, in dashboard order, with the title of the row above it."""
    doc = json.loads(dashboard.read_text())
    row, out = "dashboard", []
    for p in doc["panels"]:
        if p["type"] == "row":
            row = p["title"]
            continue
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        targets = tuple(Target(t["expr"], t.get("legendFormat", "")) for t in p.get("targets", []))
        out.append(Panel(row, p["title"], unit, targets))
    return out


def promql(expr: str, rate_interval: str) -> str:
    """A dashboard query as Prometheus takes it: Grafana's interval variables replaced."""
    return re.sub(r"\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}",
                  rate_interval, expr)


def _get(url: str, path: str, params: dict[str, Any]) -> Any:
    with urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=30) as r:
        doc = json.load(r)
    if doc.get("status") != "success":
        raise RuntimeError(f"Prometheus {path} {params}: {doc}")
    return doc["data"]


def query(url: str, expr: str) -> list[dict[str, Any]]:
    """An instant query's result: [{"metric": {...}, "value": [t, "v"]}, ...]."""
    return list(_get(url, "/api/v1/query", {"query": expr})["result"])


def query_range(url: str, expr: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
    return list(_get(url, "/api/v1/query_range",
                     {"query": expr, "start": start, "end": end, "step": step})["result"])


def legend(fmt: str, labels: dict[str, str]) -> str:
    """Grafana's legend format: ``{{label}}`` replaced by the series' label value."""
    text = re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), fmt)
    return text or ",".join(f"{k}={v}" for k, v in sorted(labels.items())) or "value"


def draw(url: str, out_dir: Path = PICTURES, start: float | None = None, end: float | None = None,
         step: float = 2.0, rate_interval: str = "10s", dashboard: Path = DASHBOARD) -> list[Path]:
    """Draw every row of the dashboard over [start, end] (default: the last 5 minutes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    end = end or time.time()
    start = start or end - 300
    rows: dict[str, list[Panel]] = {}
    for p in panels(dashboard):
        rows.setdefault(p.row, []).append(p)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for row, members in rows.items():
        cols = 2 if len(members) in (2, 4) else min(len(members), 3)
        nrows = -(-len(members) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.2 * nrows), squeeze=False)
        for ax, panel in zip(axes.flat, members, strict=False):
            for target in panel.targets:
                for series in query_range(url, promql(target.expr, rate_interval), start, end, step):
                    xs = [(float(t) - start) / 60 for t, _ in series["values"]]
                    ys = [float(v) for _, v in series["values"]]
                    ax.plot(xs, ys, label=legend(target.legend, series["metric"]))
            ax.set_title(panel.title, fontsize=10)
            ax.set_xlabel("minutes", fontsize=8)
            ax.set_ylabel(_UNITS.get(panel.unit, panel.unit), fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="best")
        for ax in list(axes.flat)[len(members):]:
            ax.axis("off")
        fig.suptitle(f"rackwise dashboard: {row}", fontsize=12)
        fig.tight_layout()
        slug = re.sub(r"[^a-z0-9]+", "-", row.lower()).strip("-")
        path = out_dir / f"dashboard-{slug}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prometheus", required=True, help="Prometheus base URL")
    parser.add_argument("--minutes", type=float, default=5.0, help="how far back to draw")
    parser.add_argument("--step", type=float, default=2.0, help="seconds between points")
    parser.add_argument("--rate-interval", default="1m", help="what $__rate_interval stands for")
    parser.add_argument("--out", type=Path, default=PICTURES)
    args = parser.parse_args(argv)
    end = time.time()
    for path in draw(args.prometheus.rstrip("/"), args.out, end - args.minutes * 60, end,
                     args.step, args.rate_interval):
        print(path)


if __name__ == "__main__":
    main()
