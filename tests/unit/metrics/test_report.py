"""The report renders charts and a page from a small Parquet table made here."""

from __future__ import annotations

import html
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from metrics.report import ReportError, _pair_matrix, load, render

pytestmark = pytest.mark.unit
T0 = datetime(2026, 3, 1, 12, 0)


def _plan(group: str, gen: int, offset: int, cross: int, cost: float, bound: float) -> dict:  # type: ignore[type-arg]
    return {"group_id": group, "generation": gen, "kind": "consumer", "reason": "initial",
            "assignor": "range", "event_time": T0 + timedelta(minutes=3 * gen + offset),
            "published_at": T0, "source_partition": 0, "source_offset": offset, "members": 2,
            "partitions": 6, "cross_rack_partitions": cross, "weight": 6.0,
            "cross_rack_weight": float(cross), "traffic_cost": cost, "lower_bound": bound,
            "max_load": 3, "min_load": 3, "moved_partitions": 0, "standby_rack_diversity": None,
            "withheld_partitions": 0, "reported_cross_rack_partitions": cross,
            "cross_rack_ratio": cross / 6, "weighted_cross_rack_ratio": cross / 6,
            "load_spread": 0, "excess_cost": cost - bound, "processed_at": T0}


def _pair(group: str, gen: int, offset: int, src: str, dst: str, n: int) -> dict:  # type: ignore[type-arg]
    return {"group_id": group, "generation": gen, "event_time": T0, "source_partition": 0,
            "source_offset": offset, "source_rack": src, "member_rack": dst,
            "cross_rack": src != dst, "partitions": n, "weight": float(n), "processed_at": T0}


def _write(root: Path, table: str, batch: int, rows: list[dict]) -> None:  # type: ignore[type-arg]
    folder = root / table / f"batch_id={batch}"
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(folder / "part-0.parquet")


@pytest.fixture
def metrics_dir(tmp_path: Path) -> Path:
    root = tmp_path / "crt"
    _write(root, "plan_metrics", 0, [_plan("orders-app", 1, 0, 4, 4.0, 1.0),
                                     _plan("billing<app>", 3, 1, 2, 2.0, 2.0)])
    # batch 1: the next generation, and orders-app gen 1 published again (count it once)
    _write(root, "plan_metrics", 1, [_plan("orders-app", 2, 2, 1, 1.0, 1.0),
                                     _plan("orders-app", 1, 3, 4, 4.0, 1.0)])
    _write(root, "rack_pairs", 0, [_pair("orders-app", 1, 0, "az2", "az1", 3),
                                   _pair("orders-app", 1, 0, "az3", "az2", 1),
                                   _pair("orders-app", 1, 0, "az1", "az1", 2),
                                   _pair("billing<app>", 3, 1, "az1", "az3", 2),
                                   _pair("billing<app>", 3, 1, "az3", "az3", 4)])
    _write(root, "rack_pairs", 1, [_pair("orders-app", 2, 2, "az2", "az1", 1),
                                   _pair("orders-app", 2, 2, "az1", "az1", 5),
                                   _pair("orders-app", 1, 3, "az2", "az1", 3),
                                   _pair("orders-app", 1, 3, "az3", "az2", 1),
                                   _pair("orders-app", 1, 3, "az1", "az1", 2)])
    _write(root, "rejected", 1, [{"source_topic": "p", "source_partition": 0, "source_offset": 9,
                                  "reason": "empty value", "value": None}])
    return root


def test_load_keeps_one_record_per_plan(metrics_dir: Path) -> None:
    data = load(metrics_dir)
    assert sorted(zip(data.plans.group_id, data.plans.generation, strict=True)) == \
        [("billing<app>", 3), ("orders-app", 1), ("orders-app", 2)]
    assert data.plans.set_index(["group_id", "generation"]).loc[("orders-app", 1), "source_offset"] == 3
    racks = ["az1", "az2", "az3"]
    matrix = _pair_matrix(data.pairs[data.pairs.group_id == "orders-app"], racks)
    assert matrix[1, 0] == 3 + 1 and matrix[2, 1] == 1 and matrix[0, 0] == 2 + 5
    assert data.rejected == 1


def test_render_writes_pngs_and_one_page(metrics_dir: Path, tmp_path: Path) -> None:
    page = render(metrics_dir, tmp_path / "report")
    assert page == tmp_path / "report" / "index.html"
    text = page.read_text()
    for name in ("crt_over_time.png", "rack_pairs.png", "actual_vs_best.png"):
        png = tmp_path / "report" / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert f'src="{name}"' in text
    assert "3 plans of 2 groups;\n1 malformed plan record set aside" in text
    assert html.escape("billing<app>") in text and "billing<app>" not in text
    # the latest row of orders-app is generation 2 with 1 cross-rack partition
    row = text.split("<td>orders-app</td>")[1].split("</tr>")[0]
    assert row.startswith("<td>2</td>") and "<td>1</td>" in row


def test_no_metrics_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="metrics run"):
        render(tmp_path / "nothing", tmp_path / "out")


def test_observe_mode_recommendations_are_not_reported_as_what_a_group_costs(tmp_path: Path) -> None:
    root = tmp_path / "crt"
    observed = {**_plan("live-app", 1000, 0, 5, 5.0, 2.0), "reason": "observed"}
    recommended = {**_plan("live-app", 1001, 1, 2, 2.0, 2.0), "reason": "recommended"}
    _write(root, "plan_metrics", 0, [observed, recommended])
    _write(root, "rack_pairs", 0, [_pair("live-app", 1000, 0, "az1", "az2", 5),
                                   _pair("live-app", 1001, 1, "az1", "az2", 2)])
    data = load(root)
    assert list(data.plans.reason) == ["observed"]
    assert list(data.pairs.generation) == [1000]
    only_recommended = tmp_path / "rec"
    _write(only_recommended, "plan_metrics", 0, [recommended])
    with pytest.raises(ReportError, match="recommendations"):
        load(only_recommended)


def test_heat_map_compares_each_groups_worst_plan_with_its_latest(metrics_dir: Path,
                                                                   tmp_path: Path) -> None:
    from metrics import report

    seen: list[tuple[str, list[tuple[str, int]]]] = []
    original = report._pair_matrix

    def spy(pairs: pd.DataFrame, racks: list[str]):  # type: ignore[no-untyped-def]
        seen.append(("panel", sorted(set(zip(pairs.group_id, pairs.generation, strict=True)))))
        return original(pairs, racks)

    data = load(metrics_dir)
    report._pair_matrix = spy
    try:
        report.chart_rack_pairs(data.plans, data.pairs, tmp_path / "pairs.png")
    finally:
        report._pair_matrix = original
    # orders-app: gen 1 has 4 cross-rack (its worst), gen 2 is the latest; billing has one plan
    assert [gens for _, gens in seen] == [[("billing<app>", 3), ("orders-app", 1)],
                                          [("billing<app>", 3), ("orders-app", 2)]]


def test_money_and_rack_pair_bytes(tmp_path: Path) -> None:
    """Plans with measured traffic: $/month actual vs best, and cross-rack bytes per pair."""
    from metrics import report

    root = tmp_path / "crt"
    money = {"bytes_per_s": 3e6, "cross_rack_bytes_per_s": 2e6,
             "cross_rack_bytes_per_s_worst": 3e6, "lower_bound_bytes_per_s": 5e5,
             "usd_per_month": 97.89, "usd_per_month_best": 24.47, "usd_per_month_worst": 146.83,
             "rack_unknown_members": 1}
    _write(root, "plan_metrics", 0, [{**_plan("paying", 1, 0, 2, 2.0, 1.0), **money},
                                     {**_plan("old", 1, 1, 1, 1.0, 1.0)}])
    pairs = [{**_pair("paying", 1, 0, "az1", "az2", 2), "bytes_per_s": 2e6,
              "cross_rack_bytes_per_s": 2e6},
             {**_pair("paying", 1, 0, "az1", "az1", 1), "bytes_per_s": 1e6,
              "cross_rack_bytes_per_s": 0.0}]
    _write(root, "rack_pairs", 0, pairs)
    data = load(root)
    assert data.plans.set_index("group_id").loc["old", "usd_per_month"] != \
        data.plans.set_index("group_id").loc["old", "usd_per_month"]  # NaN: not measured
    page = render(root, tmp_path / "report")
    text = page.read_text()
    for name in ("cost_per_group.png", "rack_pair_bytes.png"):
        png = tmp_path / "report" / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f'src="{name}"' in text
    assert "$97.89" in text and "$24.47" in text and "1.9 MiB/s" in text
    latest = data.plans[data.plans.group_id == "paying"]
    assert report.chart_cost_per_group(latest, tmp_path / "c.png").exists()


def test_tables_of_an_older_job_still_render(metrics_dir: Path, tmp_path: Path) -> None:
    page = render(metrics_dir, tmp_path / "report")  # no bytes columns at all
    assert (tmp_path / "report" / "cost_per_group.png").exists()
    assert "$" not in page.read_text().split("<tbody>")[1].split("</tbody>")[0]


# --- every chart draws figures or says in the picture why not ----------

def _money(bytes_per_s: float, cross: float, best: float, worst: float | None = None,
           rack_unknown: int = 0) -> dict:  # type: ignore[type-arg]
    """The metrics job's bytes and $ columns of one plan, priced as it prices them."""
    from protocol.pricing import Price

    price = Price()
    worst = cross if worst is None else worst
    return {"bytes_per_s": bytes_per_s, "cross_rack_bytes_per_s": cross,
            "cross_rack_bytes_per_s_worst": worst, "lower_bound_bytes_per_s": best,
            "usd_per_month": price.per_month(cross), "usd_per_month_best": price.per_month(best),
            "usd_per_month_worst": price.per_month(worst), "rack_unknown_members": rack_unknown}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The text in each chart's figure (titles, labels, notes), by the file it was saved to."""
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    seen: dict[str, str] = {}
    save = Figure.savefig

    def spy(fig: Figure, path, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen[Path(path).name] = "\n".join(t.get_text() for t in fig.findobj(Text))
        return save(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    yield seen
    plt.close("all")


def test_demo_like_plans_without_bytes_show_partitions_and_say_why(
        tmp_path: Path, drawn: dict[str, str]) -> None:
    """After `make demo`: plans measured 0 B/s (topics idle), then plans with no bytes at all.
    No $0.00 bars: cross-rack partitions first -> latest, and the reason, in the picture."""
    from metrics.costcharts import IDLE

    root = tmp_path / "crt"
    groups = ["demo-a", "demo-b", "demo-c", "demo-d"]
    rows, pairs = [], []
    for i, g in enumerate(groups):
        rows += [_plan(g, 1, 3 * i, 4, 4.0, 1.0),
                 {**_plan(g, 2, 3 * i + 1, 3, 3.0, 1.0), **_money(0.0, 0.0, 0.0)},
                 _plan(g, 3, 3 * i + 2, 0, 0.0, 0.0)]
        pairs += [_pair(g, gen, 3 * i + gen - 1, "az1", "az2" if gen == 1 else "az1", 6)
                  for gen in (1, 2, 3)]
    _write(root, "plan_metrics", 0, rows)
    _write(root, "rack_pairs", 0, pairs)
    render(root, tmp_path / "report")
    cost = drawn["cost_per_group.png"]
    assert "$0.00" not in cost and "$ per month" not in cost
    assert "cross-rack partitions" in cost and IDLE in cost
    for g in groups:
        assert f"{g}: latest gen 3: no measured bytes; earlier plans measured 0 B/s" in cost
        assert f"{g}\n(gen 1 → 3)" in cost
    assert cost.count("4 of 6") == 4 and cost.count("0 of 6") == 4
    assert IDLE in drawn["rack_pair_bytes.png"]
    # the latest plans read nothing across racks: said, not left as bars of height 0
    assert "traffic cost 0, which is also its lower bound" in drawn["actual_vs_best.png"]


def test_cost_chart_draws_each_groups_latest_plan_with_traffic(
        tmp_path: Path, drawn: dict[str, str]) -> None:
    from metrics.costcharts import group_costs

    root = tmp_path / "crt"
    alpha_before, alpha = _money(4e6, 3e6, 5e5), _money(4e6, 4e5, 1e5)
    beta = _money(2e6, 1e6, 0.0, worst=2e6, rack_unknown=1)
    rows = [{**_plan("alpha", 1, 0, 4, 4.0, 1.0), **alpha_before},
            {**_plan("alpha", 3, 1, 1, 1.0, 1.0), **alpha},
            {**_plan("beta", 2, 2, 2, 2.0, 1.0), **beta},
            _plan("beta", 4, 3, 2, 2.0, 1.0),  # re-planned, bytes not (yet) measured
            _plan("gamma", 1, 4, 2, 2.0, 1.0),  # never measured
            {**_plan("tiny", 1, 5, 1, 1.0, 0.0), **_money(50.0, 20.0, 0.0)}]
    pairs = [{**_pair("alpha", 3, 1, "az1", "az2", 1), "bytes_per_s": 4e5,
              "cross_rack_bytes_per_s": 4e5},
             {**_pair("beta", 2, 2, "az2", "az3", 2), "bytes_per_s": 1e6,
              "cross_rack_bytes_per_s": 1e6},
             {**_pair("beta", 4, 3, "az2", "az3", 2)}]
    _write(root, "plan_metrics", 0, rows)
    _write(root, "rack_pairs", 0, pairs)
    data = load(root)
    costs = {c.group: c for c in group_costs(data.plans)}
    assert costs["alpha"].why is None and costs["beta"].why == "latest gen 4: no measured bytes"
    assert costs["gamma"].priced is None and costs["gamma"].measured == 0
    render(root, tmp_path / "report")
    cost = drawn["cost_per_group.png"]
    assert "$ per month" in cost
    for figure in (alpha_before["usd_per_month"], alpha["usd_per_month"],
                   alpha["usd_per_month_best"], beta["usd_per_month"]):
        assert f"${figure:,.2f}" in cost
    assert "alpha\n(gen 1 → 3)" in cost and "beta\n(gen 2)" in cost
    assert "latest gen 4: no measured bytes" in cost
    assert "not drawn: gamma: none of its plans (gen 1) has measured bytes" in cost
    assert "<$0.01" in cost  # 20 B/s across racks is not nothing
    pair_bytes = drawn["rack_pair_bytes.png"]
    assert "beta gen 2 (latest 4)" in pair_bytes and "alpha" not in pair_bytes.split("older")[-1]
    assert f"total {_rate_of(4e5 + 1e6)}" in pair_bytes


def _rate_of(value: float) -> str:
    from metrics.costcharts import rate

    return rate(value)


def test_nothing_measured_at_all_says_so(metrics_dir: Path, tmp_path: Path,
                                         drawn: dict[str, str]) -> None:
    from metrics.costcharts import NOT_MEASURED

    render(metrics_dir, tmp_path / "report")  # an older job's tables: no bytes columns
    assert NOT_MEASURED in drawn["cost_per_group.png"]
    assert "cross-rack partitions" in drawn["cost_per_group.png"]
    assert NOT_MEASURED in drawn["rack_pair_bytes.png"]
    assert "lower bound" in drawn["actual_vs_best.png"]
    assert "traffic cost 0" not in drawn["actual_vs_best.png"]  # it has bars to show


def test_a_heat_map_panel_without_rack_pairs_says_so(tmp_path: Path,
                                                     drawn: dict[str, str]) -> None:
    root = tmp_path / "crt"
    # gen 1 is the worst plan but the job wrote no rack pairs for it
    _write(root, "plan_metrics", 0, [_plan("g", 1, 0, 4, 4.0, 1.0), _plan("g", 2, 1, 1, 1.0, 1.0)])
    _write(root, "rack_pairs", 0, [_pair("g", 2, 1, "az1", "az2", 1),
                                   _pair("g", 2, 1, "az1", "az1", 5)])
    render(root, tmp_path / "report")
    pairs = drawn["rack_pairs.png"]
    assert pairs.count("no rack pairs recorded for these plans") == 1
    assert "cross-rack: 1 of 6" in pairs


def test_a_streams_groups_plan_shows_with_its_assignor(tmp_path: Path) -> None:
    """The brokers' streams-group plug-in publishes plans of kind streams, assignor rackwise:
    the page lists the group with its assignor and CRT figures, beside a consumer group."""
    root = tmp_path / "crt"
    streams = {**_plan("kip1071-app", 5, 0, 2, 2.0, 2.0), "kind": "streams", "assignor": "rackwise",
               "reason": "assigned", "partitions": 12, "cross_rack_ratio": 2 / 12}
    _write(root, "plan_metrics", 0, [streams, _plan("orders-app", 1, 1, 1, 1.0, 1.0)])
    _write(root, "rack_pairs", 0, [_pair("kip1071-app", 5, 0, "az1", "az2", 2),
                                   _pair("kip1071-app", 5, 0, "az2", "az2", 10),
                                   _pair("orders-app", 1, 1, "az1", "az2", 1)])
    text = render(root, tmp_path / "report").read_text()
    assert "<th>kind</th><th>assignor</th><th>reason</th>" in text
    row = text.split("<td>kip1071-app</td>")[1].split("</tr>")[0]
    assert row.startswith("<td>5</td><td>streams</td><td>rackwise</td><td>assigned</td><td>12</td>"
                          "<td>2</td><td>0.167</td>"), row
    assert "<td>consumer</td><td>range</td>" in text.split("<td>orders-app</td>")[1]
