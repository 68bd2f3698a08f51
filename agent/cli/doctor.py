"""``rackwise doctor --bootstrap B [--group PATTERN] [--json]``: a read-only preflight.

Checks the brokers (``broker.rack``, ``replica.selector.class``, rackwise's KIP-848 assignor
on all or none), the live groups (members' ``client.rack`` missing or naming no broker rack,
groups on ``rackwise`` that some broker cannot serve), the agent (its topics, a live agent,
fresh advice) and what follower fetching would save (agent.doctor). Each finding says the
exact setting to change. Nothing is written to the cluster.

Exit codes: 0 all is well (``info`` findings only), 1 findings (errors or warnings), 2 no
broker answered within ``--timeout`` (one line on stderr; ``--json`` also prints
``{"status": "unreachable", ...}``) or a bad argument.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import Any

from protocol.errors import RackwiseError

EXIT_FINDINGS = 1
EXIT_UNREACHABLE = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor", help="read-only preflight: broker, group and agent settings rackwise needs")
    parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or RACKWISE_BOOTSTRAP)")
    parser.add_argument("--group", default="*", metavar="PATTERN",
                        help="groups whose members to check, fnmatch pattern (default: all)")
    parser.add_argument("--json", action="store_true",
                        help='{"status": "ok|findings|unreachable", "findings": [...], '
                             '"checked": {...}}')
    parser.add_argument("--config", help="agent settings file (topic names, the agents' group, "
                                         "Kafka client properties, cost)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="per request, seconds (default 10); no broker answering within "
                             "it exits 2")
    parser.add_argument("--window", type=float, metavar="S",
                        help="seconds of traffic to sample when pricing follower fetching "
                             "(default: traffic.window_s, 10; only sampled when it applies); "
                             "0: count partitions only")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent.config.settings import load_settings
    from agent.doctor import (
        UNREACHABLE,
        Unreachable,
        gather,
        render_json,
        render_table,
        render_unreachable_json,
        run_checks,
        status_of,
    )

    if not (args.bootstrap or os.environ.get("RACKWISE_BOOTSTRAP") or args.config):
        raise RackwiseError("no cluster given: pass --bootstrap B or set RACKWISE_BOOTSTRAP")
    if not args.timeout > 0:
        raise RackwiseError("--timeout must be > 0 seconds")
    if args.window is not None and args.window < 0:
        raise RackwiseError("--window must be >= 0 seconds")
    settings = load_settings(args.config, bootstrap=args.bootstrap)
    window = settings.traffic.window_s if args.window is None else args.window
    try:
        snap = gather(settings, args.group, args.timeout, window)
    except Unreachable as exc:
        message = (f"rackwise doctor: {UNREACHABLE}: no broker of {settings.bootstrap} answered "
                   f"within {args.timeout:g}s ({exc})")
        if args.json:
            print(render_unreachable_json(settings.bootstrap, str(exc)))
        print(message, file=sys.stderr)
        return EXIT_UNREACHABLE
    findings = run_checks(snap)
    if args.json:
        print(render_json(snap, findings))
    else:
        width = shutil.get_terminal_size((120, 24)).columns
        print(render_table(snap, findings, width=max(100, width)))
    return EXIT_FINDINGS if status_of(findings) != "ok" else 0
