"""``rackwise metrics run``: the Spark job that turns published plans into CRT metrics (metrics/job.py)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("metrics", help="the Spark Structured Streaming CRT metrics job")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    run_p = actions.add_parser("run", help="read the plans topic, write metrics to a topic and Parquet")
    run_p.add_argument("--bootstrap", default=os.environ.get("RACKWISE_BOOTSTRAP"),
                       help="Kafka bootstrap servers (default: RACKWISE_BOOTSTRAP)")
    run_p.add_argument("--available-now", action="store_true",
                       help="process what is in the topic now, then exit")
    run_p.add_argument("--output", type=Path, help="Parquet tables go here (default: out/crt)")
    run_p.add_argument("--master", help="Spark master (default: local[2])")
    run_p.add_argument("--checkpoint", type=Path, help="checkpoint dir (default: OUTPUT/_checkpoints)")
    run_p.add_argument("--plans-topic", help="default: rackwise.plans")
    run_p.add_argument("--metrics-topic", help="default: rackwise.crt-metrics")
    run_p.add_argument("--watermark", help="event-time watermark delay (default: 10 minutes)")
    run_p.add_argument("--price-per-gb", type=float, metavar="USD",
                       help="$ per GB crossing racks, per billed direction (default 0.01)")
    run_p.add_argument("--billed-directions", type=int, choices=(1, 2),
                       help="2: both zones pay, as on AWS (default); 1: as on Google Cloud")
    run_p.add_argument("--timeout", type=float,
                       help="stop after this many seconds (with --available-now: give up, exit 1)")
    run_p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from metrics.job import run as run_job
    from metrics.settings import MetricsSettings

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    given = {"bootstrap": args.bootstrap, "output": args.output, "master": args.master,
             "checkpoint": args.checkpoint, "plans_topic": args.plans_topic,
             "metrics_topic": args.metrics_topic, "watermark": args.watermark,
             "price_per_gb": args.price_per_gb, "billed_directions": args.billed_directions}
    settings = MetricsSettings(**{k: v for k, v in given.items() if v is not None})
    try:
        counters = run_job(settings, available_now=args.available_now, timeout=args.timeout)
    except (TimeoutError, RuntimeError) as exc:  # a query failed or did not finish in time
        print(f"rackwise metrics run: error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"output": str(settings.output), **counters.as_dict()}), flush=True)
    return 0
