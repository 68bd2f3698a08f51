"""A librdkafka client collected on its own thread aborts the process; closing it first does not.

confluent-kafka's AdminClient finishes each request on librdkafka's background thread, in
Python. If the collector runs there and finds that very client in a garbage cycle (a request it
was left waiting on), it destroys the client on its own thread, and librdkafka aborts the whole
process ("calling rd_kafka_destroy() from librdkafka owned thread is prohibited";
confluent-kafka-python PR 2131). One such abort took down a whole `make test` in CI.

So our code closes every short-lived client on the thread that made it (`with AdminClient(...)`),
the agent closes its own at shutdown, and tests/conftest.py collects cycles only between tests,
on the main thread. Each case below runs in a child process against an address nobody serves,
so every request is still pending when its client becomes garbage; the collector runs on every
allocation, so the first callback on the background thread meets the garbage.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SCRIPT = textwrap.dedent("""
    import gc, sys, time
    from confluent_kafka.admin import AdminClient

    policy = sys.argv[1]
    gc.set_threshold(1, 1, 1)
    if policy == "collect-between":
        gc.disable()

    class Cycle:
        pass

    for _ in range(5):
        conf = {"bootstrap.servers": "127.0.0.1:9", "log_level": 0}
        if policy == "closed":
            with AdminClient(conf) as admin:
                admin.describe_cluster(request_timeout=1)
        else:
            admin = AdminClient(conf)
            admin.describe_cluster(request_timeout=1)
        cycle = Cycle()
        cycle.client, cycle.me = admin, cycle
        del admin, cycle
    time.sleep(3)  # every request times out meanwhile, on the background thread
    if policy == "collect-between":
        gc.collect()  # as tests/conftest.py does after each test, on the main thread
    print("survived")
""")


def _run(policy: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT, policy], capture_output=True, text=True,
                          timeout=60)


def test_a_client_left_in_a_cycle_with_a_request_pending_aborts_the_process() -> None:
    done = _run("left")
    assert done.returncode != 0 and "survived" not in done.stdout, (
        "the hazard is gone in this confluent-kafka: the closing and the collection policy of "
        f"tests/conftest.py could go (rc {done.returncode}, {done.stderr[-300:]!r})")
    assert "librdkafka owned thread" in done.stderr, done.stderr[-500:]


@pytest.mark.parametrize("policy", ["closed", "collect-between"])
def test_closing_on_the_owning_thread_or_collecting_there_survives(policy: str) -> None:
    done = _run(policy)
    assert done.returncode == 0 and "survived" in done.stdout, (done.returncode, done.stderr[-800:])


PROBE = textwrap.dedent('''
    import gc, subprocess, sys


    def test_librdkafka_aborts_inside_a_test():
        # the abort above, inside pytest: gc back on during the test, and the same script
        gc.enable()
        exec(compile(SCRIPT, "script", "exec"), {"__name__": "probe"})
''')


def test_a_native_abort_inside_pytest_keeps_librdkafkas_message(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`make test`'s capture (``--capture=sys`` and RACKWISE_NATIVE_STDERR, tests/conftest.py):
    when librdkafka aborts the process inside a test, its own words are in the file afterwards,
    and pytest's faulthandler still prints the threads' tracebacks on the real stderr."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(f"SCRIPT = {SCRIPT!r}\nimport sys\nsys.argv = ['probe', 'left']\n{PROBE}")
    native = tmp_path / "native-stderr.log"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "RACKWISE_NATIVE_STDERR": str(native), "PYTHONPATH": str(root),
           "RACKWISE_CURRENT_TEST_FILE": str(tmp_path / "current")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.conftest",
                           "--capture=sys", "-q", "--rootdir", str(tmp_path), str(probe)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=root)
    assert done.returncode < 0 or done.returncode >= 128, (done.returncode, done.stdout[-800:])
    assert "librdkafka owned thread" in native.read_text(), native.read_text()[-800:]
    assert "Fatal Python error: Aborted" in done.stderr, done.stderr[-800:]
