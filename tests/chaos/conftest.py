"""Fixtures of the chaos suite: seeds, a private testbed, and running the suite last.

Chaos tests kill, pause and starve things; they run after every other test of the session
(so a slow recovery cannot disturb them), and the ones that stop a broker or need SASL use a
*private* testbed (port base RACKWISE_CHAOS_PORT_BASE, default 26092; SASL/PLAIN listener on)
that is started on first use and stopped at the end of the session.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chaos.harness import FULL


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Stable partition: everything else, then chaos tests on the shared testbed, then those
    # on the private one (so it is up only while they run).
    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("chaos") is None:
            return 0
        return 2 if "private_bed" in getattr(item, "fixturenames", ()) else 1

    items.sort(key=rank)


@pytest.fixture
def seed(request: pytest.FixtureRequest) -> int:
    """A seed per test: RACKWISE_CHAOS_SEED to replay one, otherwise from the clock; printed."""
    value = int(os.environ.get("RACKWISE_CHAOS_SEED") or time.time_ns() % 1_000_000_007)
    print(f"\n{request.node.nodeid}: seed {value} (replay: RACKWISE_CHAOS_SEED={value}); "
          f"{'full' if FULL else 'bounded'} form")
    return value


@pytest.fixture
def rng(seed: int) -> random.Random:
    return random.Random(seed)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture(scope="session")
def private_bed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A testbed of our own (brokers may be stopped); SASL/PLAIN on base+2 of each node."""
    if os.environ.get("RACKWISE_BOOTSTRAP"):
        pytest.skip("RACKWISE_BOOTSTRAP is set: the chaos suite needs a local testbed of its own")
    from agent.dev.testbed import Testbed

    base = int(os.environ.get("RACKWISE_CHAOS_PORT_BASE", "26092"))
    bed = Testbed(base_dir=tmp_path_factory.mktemp("private-testbed"), port_base=base,
                  sasl=True, heap_mb=384)
    bed.up(timeout=240)
    try:
        yield bed
    finally:
        bed.down()
