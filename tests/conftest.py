"""Shared fixtures. Integration tests get one real 3-broker KRaft testbed per session.

``bootstrap`` is RACKWISE_BOOTSTRAP when set (a testbed or cluster someone else runs),
otherwise the local testbed is started once for the whole session and stopped at the end
(unless it was already running before the session: then it is left as found).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def bootstrap() -> Iterator[str]:
    env = os.environ.get("RACKWISE_BOOTSTRAP")
    if env:
        yield env
        return
    from agent.dev import testbed

    bed = testbed.Testbed()
    was_running = bed.is_running()
    servers = bed.up()
    try:
        yield servers
    finally:
        if not was_running and not os.environ.get("RACKWISE_KEEP_TESTBED"):
            bed.down()


@pytest.fixture(scope="session")
def admin(bootstrap: str):  # type: ignore[no-untyped-def]
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> str:
    """A topic/group name no other test uses: test name plus a random suffix."""
    base = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"t-{base}-{uuid.uuid4().hex[:8]}"


def pytest_configure(config: pytest.Config) -> None:
    # One hypothesis profile for the whole suite: no wall-clock deadlines (the machine is
    # shared with three brokers and Spark), and every failure prints how to reproduce it.
    from hypothesis import HealthCheck, settings

    settings.register_profile("rackwise", deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("rackwise")
