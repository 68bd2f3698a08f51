"""Shared fixtures. Integration tests get one real 3-broker KRaft testbed per session.

``bootstrap`` is RACKWISE_BOOTSTRAP when set (a testbed or cluster someone else runs),
otherwise the local testbed is started once for the whole session and stopped at the end
(unless it was already running before the session: then it is left as found).
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# The test running now: `make test` prints it when pytest dies without a summary.
CURRENT_TEST = Path(os.environ.get("RACKWISE_CURRENT_TEST_FILE", ".cache/pytest-current-test"))
# Where native code's stderr goes (librdkafka's assertions and logs), when set: `make test`
# sets it and prints the file's end when pytest exits without its summary (exit code above 1).
NATIVE_STDERR = os.environ.get("RACKWISE_NATIVE_STDERR")
_SAVED_STDERR: list[int] = []
FULL_GC_EVERY = 50
_RUNS = [0]


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

    with AdminClient({"bootstrap.servers": bootstrap}) as client:
        yield client


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> str:
    """A topic/group name no other test uses: test name plus a random suffix."""
    base = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    return f"t-{base}-{uuid.uuid4().hex[:8]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    """Garbage cycles are collected between tests, on this thread, never during one.

    A librdkafka client (Producer, Consumer, AdminClient) that a test leaves in a reference
    cycle (a traceback kept in a local is enough) would otherwise be collected wherever the
    collector next runs, and that can be its own AdminClient background thread, finishing a
    request the test gave up on. librdkafka aborts the whole process when a client is destroyed
    on its own thread (confluent-kafka-python PR 2131; tests/unit/test_client_collection.py
    shows it). Our own code closes its clients on the thread that made them; this covers what a
    test forgets. The name of the test that runs is written first, so that a crash names it.
    """
    CURRENT_TEST.parent.mkdir(parents=True, exist_ok=True)
    CURRENT_TEST.write_text(item.nodeid + "\n")
    gc.disable()
    try:
        yield
    finally:
        # What this test made is all in the youngest generations (nothing collected meanwhile):
        # collecting those is cheap. A full collection walks every live object (about 90 ms late
        # in the session), so it runs once every FULL_GC_EVERY tests, for older garbage.
        _RUNS[0] += 1
        gc.collect(2 if _RUNS[0] % FULL_GC_EVERY == 0 else 1)
        gc.enable()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    _native_stderr_to_file(config)
    _hypothesis_profile()


def _native_stderr_to_file(config: pytest.Config) -> None:
    """With RACKWISE_NATIVE_STDERR and ``--capture=sys``, file descriptor 2 goes to that file.

    pytest's default ``--capture=fd`` keeps a test's fd-2 output in an unlinked temporary file,
    so when librdkafka aborts the process (``*** file:line:function: assert: ... ***`` on fd 2)
    its message dies with it. `make test` captures at the sys level instead and points fd 2 at a
    file that outlives the process. Runs after pytest's faulthandler has kept its own copy of
    the real stderr, so a crash's Python tracebacks still reach the terminal.
    """
    if not NATIVE_STDERR or config.getoption("capture", "fd") != "sys":
        return
    path = Path(NATIVE_STDERR)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
    _SAVED_STDERR.append(os.dup(2))
    os.dup2(fd, 2)
    os.close(fd)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SAVED_STDERR:
        saved = _SAVED_STDERR.pop()
        os.dup2(saved, 2)
        os.close(saved)


def _hypothesis_profile() -> None:
    # One hypothesis profile for the whole suite: no wall-clock deadlines (the machine is
    # shared with three brokers and Spark), and every failure prints how to reproduce it.
    from hypothesis import HealthCheck, settings

    settings.register_profile("rackwise", deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("rackwise")
