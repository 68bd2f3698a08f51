"""Fuzzing every decoder: random and mutated bytes either decode or raise ProtocolError.

Seeded: the seed is printed and can be forced with RACKWISE_FUZZ_SEED; the example count
with RACKWISE_FUZZ_EXAMPLES, examples *per decoder* (default 2,000 x 9 decoders = 18,000
in CI, about 16 s here; bench/fuzz_protocol.py runs the long form).
"""

from __future__ import annotations

import contextlib
import os
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from protocol.describe import describe_assignment, describe_subscription
from protocol.errors import ProtocolError
from protocol.streams import (
    TaskId,
    build_subscription_info,
    decode_subscription_info,
    encode_subscription_info,
)
from protocol.streams_assignment import (
    build_assignment_info,
    decode_assignment_info,
    encode_assignment_info,
)
from protocol.userdata import decode_cooperative_sticky_user_data, decode_sticky_user_data

pytestmark = pytest.mark.property

SEED = int(os.environ.get("RACKWISE_FUZZ_SEED", random.randrange(2**32)))
EXAMPLES = int(os.environ.get("RACKWISE_FUZZ_EXAMPLES", "2000"))
print(f"protocol fuzz seed={SEED} examples={EXAMPLES}")

DECODERS: dict[str, Callable[[bytes], Any]] = {
    "subscription": decode_subscription,
    "assignment": decode_assignment,
    "sticky": decode_sticky_user_data,
    "cooperative-sticky": decode_cooperative_sticky_user_data,
    "streams-subscription": decode_subscription_info,
    "streams-subscription-exact": lambda b: decode_subscription_info(b, exact=True),
    "streams-assignment": decode_assignment_info,
    "describe-subscription": describe_subscription,
    "describe-assignment": describe_assignment,
}


def _seeds() -> list[bytes]:
    """Valid messages of every kind: mutating them reaches deep into each layout."""
    sub = Subscription(["t1", "zürich"], b"ud", [TopicPartitions("t1", [0, 1])], 5, "az1")
    infos = [encode_subscription_info(build_subscription_info(
        v, uuid.UUID(int=7), {TaskId(0, 0): -2, TaskId(1, 2): 9}, "h:1", 1, 0, {"a": "b"}))
        for v in (1, 3, 7, 10, 11)]
    asgs = [encode_assignment_info(build_assignment_info(
        v, [TaskId(0, 1)], {TaskId(1, 1): [("s", 1)]}, {("h", 1): [("t", 0), ("ü", 1)]},
        {("h", 1): [("t", 1)]}, 1, 5)) for v in (1, 2, 4, 5, 6, 7, 10)]
    out = [encode_subscription(sub, v) for v in range(4)]
    out += [encode_assignment(Assignment([TopicPartitions("t", [3])], b""), v) for v in range(4)]
    out += infos + asgs
    out += [encode_subscription(Subscription(["t"], i)) for i in infos]
    out += [encode_assignment(Assignment([], a)) for a in asgs]
    return out


SEEDS = _seeds()
EXTREME_INT32S = [b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x80\x00\x00\x00",
                  b"\x00\x00\xff\xff", b"\xff\xff\xff\xfe"]


@st.composite
def fuzz_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(st.binary(max_size=200))
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, 4))
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        if op == 0 and data:  # flip a byte
            data[pos] = draw(st.integers(0, 255))
        elif op == 1:  # truncate
            del data[pos:]
        elif op == 2:  # insert bytes
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == 3 and len(data) >= pos + 4:  # an extreme int32 (counts, lengths)
            data[pos:pos + 4] = draw(st.sampled_from(EXTREME_INT32S))
        elif op == 4 and data:  # delete a byte
            del data[pos]
    return bytes(data)


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_decoders_return_or_raise_protocol_error(name: str) -> None:
    decode = DECODERS[name]

    @seed(SEED)
    @settings(max_examples=EXAMPLES, database=None)
    @given(fuzz_bytes())
    def run(data: bytes) -> None:
        with contextlib.suppress(ProtocolError):
            decode(data)

    print(f"{name}: seed={SEED}")
    run()


def test_every_seed_decodes() -> None:
    """The mutation seeds are themselves valid (so mutations start from real messages)."""
    for data in SEEDS:
        assert any(_ok(d, data) for d in DECODERS.values())


def _ok(decode: Callable[[bytes], Any], data: bytes) -> bool:
    try:
        decode(data)
        return True
    except ProtocolError:
        return False
