"""``rackwise zone``: the zone this process runs in, and which source said so (docs/member.md).

Prints ``ZONE<TAB>SOURCE<TAB>DETAIL`` (or ``--json``) and exits 0; when no source answers it
prints every source's failure (stderr, or the JSON with ``"zone": null``) and exits 1. A bad
setting (``RACKWISE_ZONE*`` or a flag) exits 2 like every other command.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent.member.zone import ZoneConfig, ZoneDetectionError, detect_zone

EXIT_NONE = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "zone", help="detect the zone to use as client.rack (env, file, AWS, GCP, Azure)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--sources", metavar="LIST",
                        help="comma-separated subset of env,file,aws,gcp,azure "
                             "(asked in that order; default RACKWISE_ZONE_SOURCES or all)")
    parser.add_argument("--timeout-ms", type=int, metavar="MS",
                        help="budget per source, 1..1000 (default RACKWISE_ZONE_TIMEOUT_MS or 1000)")
    parser.add_argument("--aws", choices=["id", "name"], dest="aws_key",
                        help="AWS: the zone ID (default, what MSK's broker.rack uses) or the zone name")
    parser.add_argument("--file", dest="zone_file", metavar="PATH",
                        help="the zone file (default RACKWISE_ZONE_FILE or /etc/rackwise/zone)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sources = None
    if args.sources is not None:
        sources = tuple(s.strip().lower() for s in args.sources.split(",") if s.strip())
    config = ZoneConfig.from_env(
        sources=sources, timeout_ms=args.timeout_ms, aws_key=args.aws_key, zone_file=args.zone_file
    )
    try:
        result = detect_zone(config)
    except ZoneDetectionError as exc:
        if args.json:
            failures = [{"source": f.source, "reason": f.reason} for f in exc.failures]
            print(json.dumps({"zone": None, "source": None, "failures": failures}, indent=2))
        else:
            print(f"rackwise zone: {exc}", file=sys.stderr)
        return EXIT_NONE
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(f"{result.zone}\t{result.source}\t{result.detail}")
    return 0
