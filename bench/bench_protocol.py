"""Encode/decode throughput of protocol/ (not a test: figures for bench/README.md).

    .venv/bin/python bench/bench_protocol.py [--seconds 2]

Cases: a typical v3 consumer subscription (10 topics, 100 owned partitions, a rack) and a
Kafka Streams v11 SubscriptionInfo with 1,000 task offset sums. Goal: >= 100,000 consumer
subscriptions decoded per second. Prints one line per case (best of 3 runs).
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.consumer import (  # noqa: E402
    Subscription,
    TopicPartitions,
    decode_subscription,
    encode_subscription,
)
from protocol.streams import (  # noqa: E402
    TaskId,
    build_subscription_info,
    decode_subscription_info,
    encode_subscription_info,
)


def rate(fn: Callable[[], Any], seconds: float) -> float:
    """Calls per second, best of three runs of about ``seconds`` each."""
    best = 0.0
    for _ in range(3):
        n, start = 0, time.perf_counter()
        while True:
            for _ in range(200):
                fn()
            n += 200
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        best = max(best, n / elapsed)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()

    sub = Subscription(topics=[f"orders-{i:02d}" for i in range(10)], user_data=b"",
                       owned_partitions=[TopicPartitions(f"orders-{i:02d}", list(range(10)))
                                         for i in range(10)],
                       generation_id=42, rack_id="use1-az1")
    sub_bytes = encode_subscription(sub)
    sums = {TaskId(s, p): (-2 if p % 7 == 0 else p * 1000 + s) for s in range(10)
            for p in range(100)}
    info = build_subscription_info(11, uuid.UUID(int=12345), sums, "host-1:8080", 3,
                                   client_tags={"az": "use1-az1"})
    info_bytes = encode_subscription_info(info)
    assert decode_subscription(sub_bytes) == sub and decode_subscription_info(info_bytes) == info

    cases = [
        ("consumer v3 subscription decode", len(sub_bytes), lambda: decode_subscription(sub_bytes)),
        ("consumer v3 subscription encode", len(sub_bytes), lambda: encode_subscription(sub)),
        ("streams v11 SubscriptionInfo (1000 tasks) decode", len(info_bytes),
         lambda: decode_subscription_info(info_bytes)),
        ("streams v11 SubscriptionInfo (1000 tasks) encode", len(info_bytes),
         lambda: encode_subscription_info(info)),
    ]
    print(f"python {sys.version.split()[0]}")
    for name, size, fn in cases:
        r = rate(fn, args.seconds)
        print(f"{name:52s} {size:6d} B  {r:12,.0f} /s  {1e6 / r:8.2f} us")


if __name__ == "__main__":
    main()
