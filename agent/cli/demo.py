"""``rackwise demo``: what ``make demo`` runs (see agent/dev/demo/run.py)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="end-to-end demo: testbed, agent, members, plan vs wire, a replica move, the "
        "metrics job",
        description="Start the local testbed (state under .testbed in a checkout, else "
        "~/.local/state/rackwise/testbed), the agent and groups of "
        "members in three racks: two following plans (PlanFollower), classic Java consumers "
        "with RackwiseAssignor and a KIP-848 group with group.remote.assignor=rackwise; set "
        "each plan's cross-rack bytes against those its clients measured; move replicas "
        "between racks; print the cross-rack figures before and after from the Spark metrics "
        "job and write the HTML report. Everything it starts is stopped again, also on error "
        "or Ctrl-C. From an installed package it needs the 'demo' extra (Spark, the report, "
        "kafka-python) and, for the Java and KIP-848 groups, RACKWISE_PLUGIN_JAR.",
    )
    parser.add_argument("--bootstrap", help="use this cluster (3 racks) instead of the local testbed")
    parser.add_argument("--keep", action="store_true", help="leave the testbed running afterwards")
    parser.add_argument("--out", help="where the Parquet tables, report and summary.json go "
                        "(default: out/demo in a checkout, else ~/.local/state/rackwise/demo)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent.dev.demo.run import run_demo

    return run_demo(bootstrap=args.bootstrap, keep=args.keep, out=args.out)
