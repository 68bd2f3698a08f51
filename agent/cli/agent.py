"""``rackwise agent run [--bootstrap B] [--config F]``: the long-running daemon (docs/architecture.md §
Agent behaviour)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("agent", help="the rackwise agent daemon")
    sub = parser.add_subparsers(dest="agent_command", metavar="ACTION")
    sub.required = True
    run_parser = sub.add_parser("run", help="run the agent until SIGTERM/SIGINT")
    run_parser.add_argument("--bootstrap", help="Kafka bootstrap servers (or RACKWISE_BOOTSTRAP)")
    run_parser.add_argument(
        "--config", help="settings file, TOML or JSON (RACKWISE_* overrides it)"
    )
    run_parser.add_argument("--ops-port", type=int, help="port of /healthz and /metrics (-1: off)")
    run_parser.add_argument("--log-format", choices=["auto", "json", "console"])
    run_parser.add_argument(
        "--print-settings",
        action="store_true",
        help="print the effective settings (secrets masked) and exit",
    )
    run_parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from agent.config.logs import configure_logging
    from agent.config.settings import load_settings
    from agent.daemon.loop import Agent

    overrides: dict[str, Any] = {"bootstrap": args.bootstrap}
    settings = load_settings(args.config, **overrides)
    if args.ops_port is not None:
        settings = settings.model_copy(
            update={"ops": settings.ops.model_copy(update={"port": args.ops_port})}
        )
    if args.log_format:
        settings = settings.model_copy(
            update={"log": settings.log.model_copy(update={"format": args.log_format})}
        )
    if args.print_settings:
        print(json.dumps(settings.redacted(), indent=2, sort_keys=True))
        return 0
    configure_logging(settings.log.level, settings.log.format)
    return Agent(settings).run()
