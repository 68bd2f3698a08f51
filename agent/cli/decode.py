"""``rackwise decode``: a consumer-protocol subscription or assignment as JSON (docs/architecture.md §
Command line).

Input is ``--hex H``, ``--file F`` or ``-`` (stdin; also the default). A file or stdin holding
only hex digits and whitespace is read as hex, anything else as raw bytes (a real payload
starts with ``00 0x``, never with ASCII hex). Malformed input is a ProtocolError: exit 2 with
a one-line reason (agent.cli), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import string
import sys
from typing import Any

from protocol.errors import ProtocolError

_HEX = set(string.hexdigits + string.whitespace)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "decode", help="decode a subscription (default) or assignment to JSON")
    parser.add_argument("--assignment", action="store_true",
                        help="the input is a ConsumerProtocolAssignment")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--streams", dest="streams", action="store_true", default=None,
                      help="the user data must be Kafka Streams' (default: detect it)")
    kind.add_argument("--no-streams", dest="streams", action="store_false",
                      help="never decode the user data")
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--hex", metavar="H", help="the bytes as hex")
    src.add_argument("--file", metavar="F", help="a file with the bytes (raw or hex)")
    src.add_argument("stdin", nargs="?", choices=["-"], help="read stdin (the default)")
    parser.set_defaults(func=run)


def _from_hex(text: str) -> bytes:
    try:
        return bytes.fromhex("".join(text.split()))
    except ValueError:
        raise ProtocolError("--hex: not an even number of hex digits") from None


def read_input(args: argparse.Namespace) -> bytes:
    if args.hex is not None:
        return _from_hex(args.hex)
    if args.file is not None:
        try:
            with open(args.file, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise ProtocolError(f"cannot read {args.file}: {exc.strerror}") from None
    else:
        raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return raw
    if text.strip() and set(text) <= _HEX:
        return _from_hex(text)
    return raw


def run(args: argparse.Namespace) -> int:
    from protocol.describe import describe_assignment, describe_subscription

    data = read_input(args)
    describe = describe_assignment if args.assignment else describe_subscription
    print(json.dumps(describe(data, args.streams), ensure_ascii=False, indent=2))
    return 0
