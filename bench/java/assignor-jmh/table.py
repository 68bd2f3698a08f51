# ruff: noqa: E501  (markdown table rows are long on purpose)
"""JMH CSVs plus CrossRack's rows as the markdown tables of bench/README.md.

Usage: python3 table.py broker|classic CROSSRACK.tsv JMH.csv [JMH.csv ...]

Times are JMH's avgt scores (ms/op), or the median (p0.50) where JMH ran in sample mode
(`-bm sample`: the median holds still on a shared machine where the mean does not); cross-rack figures come from CrossRack (one assign() per
cell on the same seeded inputs). A goal column says "yes"/"no" for the figures measured.
"""

import csv
import sys

Cell = tuple[int, int, int, str, str]


def read_jmh(paths: list[str]) -> dict[tuple[Cell, str], tuple[float, float]]:
    out: dict[tuple[Cell, str], tuple[float, float]] = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                bench = row["Benchmark"]
                if ":" in bench and not bench.endswith(":p0.50"):
                    continue  # sample mode's other percentiles, -prof's secondary results
                cell = (int(row["Param: members"]), int(row["Param: partitionsPerMember"]),
                        int(row["Param: topics"]), row["Param: subscription"], row["Param: assignment"])
                out[(cell, row["Param: assignor"])] = (float(row["Score"]), float(row["Score Error (99.9%)"]))
    return out


def read_cross(path: str) -> dict[tuple[Cell, str], dict[str, str]]:
    out: dict[tuple[Cell, str], dict[str, str]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            cell = (int(row["members"]), int(row["ppm"]), int(row["topics"]), row["subscription"], row["assignment"])
            out[(cell, row["assignor"])] = row
    return out


def ms(t: dict[tuple[Cell, str], tuple[float, float]], cell: Cell, a: str) -> str:
    v = t.get((cell, a))
    if v is None:
        return "–"
    return f"{v[0]:.3g}" if v[0] < 10 else f"{v[0]:.0f}"


def cross(c: dict[tuple[Cell, str], dict[str, str]], cell: Cell, a: str, field: str) -> str:
    row = c.get((cell, a))
    if row is None:
        return "–"
    if field == "cross_bytes_share":
        return f"{100 * float(row[field]):.0f}%"
    return row[field]


def short(cell: Cell) -> str:
    m, k, t, s, a = cell
    return f"| {m:,} | {k} | {t} | {'homo' if s == 'HOMOGENEOUS' else 'hetero'} | {'full' if a == 'FULL' else 'incr'} |"


def broker(t: dict[tuple[Cell, str], tuple[float, float]], c: dict[tuple[Cell, str], dict[str, str]]) -> None:
    print("| members | per member | topics | subscription | assignment | racks pass | uniform | range "
          "| rackwise | rackwise weighted | rackwise / uniform | ≤ 2×(uniform + pass) | ≤ 2×uniform "
          "| cross-rack partitions uniform / range / rackwise | cross-rack bytes uniform / range / rackwise weighted "
          "| optimum checked (unweighted / weighted) |")
    print("|" + "---|" * 16)
    cells = sorted({k[0] for k in t}, key=lambda x: (x[0], x[1], x[2], x[3] != "HOMOGENEOUS", x[4] != "FULL"))
    for cell in cells:
        u = t.get((cell, "UNIFORM"))
        p = t.get((cell, "RACKS_PASS"))
        r = t.get((cell, "RACKWISE"))
        goal = stretch = ratio = "–"
        if u and r:
            ratio = f"{r[0] / u[0]:.1f}×"
        if u and r:
            stretch = "yes" if r[0] <= 2 * u[0] else "no"
        if u and p and r:
            goal = "yes" if r[0] <= 2 * (u[0] + p[0]) else "no"
        crosses = " / ".join(cross(c, cell, a, "cross") for a in ("UNIFORM", "RANGE", "RACKWISE"))
        shares = " / ".join(cross(c, cell, a, "cross_bytes_share") for a in ("UNIFORM", "RANGE", "RACKWISE_WEIGHTED"))
        opt = " / ".join({"true": "yes", "false": "no"}.get(cross(c, cell, a, "certified_optimal"), "–")
                         for a in ("RACKWISE", "RACKWISE_WEIGHTED"))
        print(f"{short(cell)} {ms(t, cell, 'RACKS_PASS')} | {ms(t, cell, 'UNIFORM')} | {ms(t, cell, 'RANGE')} "
              f"| {ms(t, cell, 'RACKWISE')} | {ms(t, cell, 'RACKWISE_WEIGHTED')} | {ratio} | {goal} | {stretch} "
              f"| {crosses} | {shares} | {opt} |")


def classic(t: dict[tuple[Cell, str], tuple[float, float]], c: dict[tuple[Cell, str], dict[str, str]]) -> None:
    print("| members | per member | topics | subscription | assignment | cooperative-sticky | rackwise "
          "| rackwise weighted | cross-rack partitions coop-sticky / rackwise "
          "| cross-rack bytes coop-sticky / rackwise weighted | assigned this round coop-sticky / rackwise |")
    print("|" + "---|" * 11)
    cells = sorted({k[0] for k in t}, key=lambda x: (x[0], x[1], x[2], x[3] != "HOMOGENEOUS", x[4] != "FULL"))
    for cell in cells:
        crosses = " / ".join(cross(c, cell, a, "cross") for a in ("COOPERATIVE_STICKY", "RACKWISE"))
        shares = " / ".join(cross(c, cell, a, "cross_bytes_share") for a in ("COOPERATIVE_STICKY", "RACKWISE_WEIGHTED"))
        assigned = " / ".join(cross(c, cell, a, "assigned") for a in ("COOPERATIVE_STICKY", "RACKWISE"))
        print(f"{short(cell)} {ms(t, cell, 'COOPERATIVE_STICKY')} | {ms(t, cell, 'RACKWISE')} "
              f"| {ms(t, cell, 'RACKWISE_WEIGHTED')} | {crosses} | {shares} | {assigned} |")


def main() -> None:
    side, cross_path, jmh_paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    t = read_jmh(jmh_paths)
    c = read_cross(cross_path)
    (broker if side == "broker" else classic)(t, c)


if __name__ == "__main__":
    main()
