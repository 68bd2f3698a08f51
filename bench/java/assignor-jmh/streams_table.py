# ruff: noqa: E501  (markdown table rows are long on purpose)
"""`run-grid.sh streams`'s CSV and cross-rack lines as the markdown table of bench/README.md.

Usage: python3 streams_table.py target/results/streams-group-grid.csv target/results/streams-group-grid-crossrack.txt

Times are JMH's avgt scores (ms/op) of StreamsGroupAssignorBenchmark; the cross-rack counts are
the benchmark's own CROSS-RACK lines (active tasks whose source partitions have no replica in
their member's rack, on the same seeded inputs).
"""

import csv
import re
import sys

LINE = re.compile(r"CROSS-RACK (\w+) members=(\d+) partitions=(\d+) subtopologies=(\d+) "
                  r"standbys=(\d+) perProcess=(\d+) (\w+): (\d+) of (\d+)")


def main(csv_path: str, crossrack_path: str) -> None:
    cross: dict[tuple[str, ...], tuple[int, int]] = {}
    with open(crossrack_path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                a, mem, p, s, sb, pp, t, x, tot = m.groups()
                cross[(a, mem, pp, p, sb, s, t)] = (int(x), int(tot))
    cells: dict[tuple[str, ...], dict[str, float]] = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            key = tuple(r[f"Param: {k}"] for k in ("memberCount", "membersPerProcess", "partitionCount",
                                                   "standbyReplicas", "subtopologyCount", "assignmentType"))
            cells.setdefault(key, {})[r["Param: assignor"]] = float(r["Score"])

    def order(k: tuple[str, ...]) -> tuple[int, int, int, int, str]:
        mem, pp, p, sb, s, t = k
        return int(mem), int(pp), int(p) * int(s), int(sb), t

    def ms(v: float) -> str:
        return f"{v:.3g}" if v < 10 else f"{v:,.0f}"

    print("| members | per process | tasks (subtopologies × partitions) | standbys | type | `sticky` ms | cross-rack `sticky` | rackwise ms | cross-rack rackwise | rackwise / `sticky` |")
    print("|---:|---:|---|---:|---|---:|---|---:|---|---:|")
    for k in sorted(cells, key=order):
        mem, pp, p, sb, s, t = k
        st, rw = cells[k]["STICKY"], cells[k]["RACKWISE"]
        xs, xr = cross[("STICKY", *k)], cross[("RACKWISE", *k)]
        print(f"| {int(mem):,} | {pp} | {int(p) * int(s):,} ({s} × {p}) | {sb} | {t} | {ms(st)} | "
              f"{xs[0]:,} of {xs[1]:,} | {ms(rw)} | {xr[0]:,} of {xr[1]:,} | {rw / st:.1f}× |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
