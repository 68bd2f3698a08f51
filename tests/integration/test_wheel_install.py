"""rackwise installed the way users install it: a wheel built from the repository, pip-installed
into a fresh venv, every command run from a directory outside the checkout.

Proves what a checkout hides: the package carries its own non-Python files (the testbed's and
the Spark connector's Maven POMs, log4j2 files, the demo's Java source) and finds them with no
repository beside it; an installed ``rackwise testbed up`` fetches Kafka's jars with the POM
inside site-packages (mvn is wrapped to log every call and, when the checkout's cache says
``make jars`` ran, to run offline against ~/.m2, so nothing is downloaded twice) and starts
three brokers; ``audit`` reads a live group on them; ``agent run --print-settings`` loads its
settings; ``testbed down`` stops them. A missing extra or plug-in jar is one line, never a
traceback. The Spark connector's POM resolves from site-packages too (``metrics.session``'s
first-use fetch), without installing the heavy spark extra.

The wheel is built from a copy of the tracked files (``git ls-files``), so a stale ``build/``
in the checkout cannot leak into it and the checkout is not written to. The base dependencies
install with ``-c constraints.txt`` from pip's cache.

RACKWISE_WHEEL_TEST_PORT_BASE moves its private testbed (default 25092: clear of the session
testbed's 19092, the demo test's 23092, chaos's 26092 and the lifecycle test's 30092).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.dev import kafkaversion, paths

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
PORT_BASE = int(os.environ.get("RACKWISE_WHEEL_TEST_PORT_BASE", "25092"))
PACKAGE_DATA = ("agent/dev/resources/kafka/pom.xml", "agent/dev/resources/kafka/log4j2.properties",
                "agent/dev/demo/DemoConsumer.java", "agent/dev/demo/java-log4j2.properties",
                "metrics/resources/spark/pom.xml")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess[str]:
    began = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    print(f"[{time.monotonic() - began:5.1f}s] {' '.join(cmd[:4])}... -> {proc.returncode}")
    return proc


def _no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]


def _build_wheel(tmp: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is needed to list the checkout's files")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    src = tmp / "src"
    for name in filter(None, files):
        if (ROOT / name).is_file():  # a file deleted but not yet committed is skipped
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    proc = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp / "dist"),
                 str(src)], cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("rackwise-*.whl")
    print(f"wheel: {wheel.name}, {wheel.stat().st_size / 1024:.0f} KiB")
    return wheel


def _install(wheel: Path, tmp: Path) -> Path:
    """A fresh venv with the wheel and its base dependencies. This pip installs into it
    (``--python``), which spares the venv its own pip; no bytecode is compiled up front."""
    venv = tmp / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp).returncode == 0
    proc = _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                 "--no-compile", "--disable-pip-version-check", "-c", str(ROOT / "constraints.txt"),
                 str(wheel)], cwd=tmp, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return venv


def _mvn_wrapper(tmp: Path, offline: bool) -> tuple[Path, Path]:
    """A ``mvn`` first on PATH that logs its arguments and adds ``-o`` when offline."""
    real = shutil.which("mvn")
    if real is None:
        pytest.skip("mvn is not installed (make setup says how)")
    bindir, log = tmp / "bin", tmp / "mvn-calls.log"
    bindir.mkdir()
    wrapper = bindir / "mvn"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" {"-o " if offline else ""}"$@"\n')
    wrapper.chmod(0o755)
    return bindir, log


class LiveGroup:
    """One confluent-kafka consumer (client.rack az3) owning a 3-partition topic, for the audit."""

    def __init__(self, bootstrap: str, name: str) -> None:
        from confluent_kafka import Consumer
        from confluent_kafka.admin import AdminClient, NewTopic

        self.topic = self.group = name
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(name, num_partitions=3, replication_factor=1)])[name].result(60)
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": name,
                                  "client.rack": "az3", "auto.offset.reset": "earliest"})
        self.consumer.subscribe([name])
        deadline = time.monotonic() + 60
        while not self.consumer.assignment() and time.monotonic() < deadline:
            self.consumer.poll(0.5)
        assert len(self.consumer.assignment()) == 3, "the audit's group did not form"

    def close(self) -> None:
        self.consumer.close()


def test_an_installed_wheel_runs_its_commands_outside_the_checkout(tmp_path: Path) -> None:
    from agent.dev.testbed import Testbed

    bed = Testbed(base_dir=tmp_path / "bed", port_base=PORT_BASE)
    ports = [p for n in bed.nodes for p in (n.client_port, n.controller_port)]
    if any(_listening(p) for p in ports):
        pytest.skip(f"ports {ports} are taken; set RACKWISE_WHEEL_TEST_PORT_BASE")
    began = time.monotonic()
    wheel = _build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(PACKAGE_DATA) <= names, f"package data missing: {set(PACKAGE_DATA) - names}"
    assert not [n for n in names if n.startswith(("tests/", "bench/", "plugins/"))]
    venv = _install(wheel, tmp_path)
    rackwise = str(venv / "bin" / "rackwise")
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import agent; print(agent.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    site = Path(where.strip()).parents[1]
    assert ROOT not in site.parents, f"the venv imports the checkout ({site})"

    # Kafka's and Spark's jars were fetched by `make jars` through the same POMs: then ~/.m2
    # holds them and the installed package resolves its own copies offline.
    libs = f"kafka-libs-{kafkaversion.default_version()}"  # the default release's broker jars
    offline = all((paths.cache_dir() / d / ".complete").exists() for d in (libs, "spark-jars"))
    bindir, mvn_log = _mvn_wrapper(tmp_path, offline)
    work = tmp_path / "work"  # cwd: outside the checkout, nothing of it on sys.path
    work.mkdir()
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RACKWISE_", "XDG_")) and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{bindir}{os.pathsep}{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               RACKWISE_TESTBED_PORT_BASE=str(PORT_BASE), RACKWISE_TESTBED_DIR=str(tmp_path / "bed"),
               RACKWISE_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1")
    bootstrap = ",".join(n.address for n in bed.nodes)

    def testbed_up(proc: subprocess.CompletedProcess[str]) -> None:
        assert proc.stdout.strip().splitlines()[-1] == bootstrap
        assert f"fetching Apache Kafka {kafkaversion.default_version()}'s broker jars" in proc.stderr
        calls = mvn_log.read_text()
        assert f"-f {site / 'agent' / 'dev' / 'resources' / 'kafka' / 'pom.xml'}" in calls, calls
        assert any(cache.glob(f"{libs}/kafka_2.13-*.jar"))
        # An installed package has no plug-in jar: the brokers start without it, said in one line.
        assert "RACKWISE_PLUGIN_JAR" in proc.stderr

    group: list[LiveGroup] = []

    def start_group() -> None:
        group.append(LiveGroup(bootstrap, f"wheel-audit-{os.getpid()}"))

    def audit(proc: subprocess.CompletedProcess[str]) -> None:
        rows = {row["group"]: row for row in json.loads(proc.stdout)["groups"]}
        row = rows[group[0].group]
        assert row["members"] == 1 and row["partitions"] == 3, row
        assert row["cross_rack_actual"] is not None, row

    def doctor(proc: subprocess.CompletedProcess[str]) -> None:
        report = json.loads(proc.stdout)
        ids = {f["id"] for f in report["findings"]}
        assert report["status"] == "findings" and "agent-not-running" in ids, report
        assert not ids & {"broker-rack-missing", "replica-selector-missing"}, report
        assert report["checked"]["brokers"] == [1, 2, 3], report["checked"]

    def settings(proc: subprocess.CompletedProcess[str]) -> None:
        assert json.loads(proc.stdout)["bootstrap"] == bootstrap

    def one_line(extra: str) -> Callable[[subprocess.CompletedProcess[str]], None]:
        def check(proc: subprocess.CompletedProcess[str]) -> None:
            out = (proc.stdout + proc.stderr).strip()
            assert len(out.splitlines()) == 1 and f"pip install 'rackwise[{extra}]'" in out, out
        return check

    # What a new user runs after `pip install rackwise-*.whl`, in order:
    # (argv, what to set up first, the exit code, what the output must show).
    Check = Callable[[subprocess.CompletedProcess[str]], None]
    commands: list[tuple[list[str], Callable[[], None] | None, int, Check]] = [
        (["testbed", "up"], None, 0, testbed_up),
        # A fresh testbed with no agent: doctor finds it (exit 1) and checked every broker.
        (["doctor", "--bootstrap", bootstrap, "--json", "--window", "0"], None, 1, doctor),
        (["audit", "--bootstrap", bootstrap, "--json", "--window", "0"], start_group, 0, audit),
        (["agent", "run", "--bootstrap", bootstrap, "--print-settings"], None, 0, settings),
        # Without the extras: one line naming the extra, no traceback.
        (["metrics", "run", "--bootstrap", bootstrap, "--available-now"], None, 2, one_line("spark")),
        (["demo"], None, 2, one_line("demo")),
    ]
    try:
        for argv, before, code, check in commands:
            if before is not None:
                before()
            proc = _run([rackwise, *argv], cwd=work, env=env)
            print(proc.stderr[-2000:], file=sys.stderr)
            _no_traceback(proc)
            assert proc.returncode == code, f"rackwise {' '.join(argv)}: {proc.stderr[-3000:]}"
            check(proc)

        # `metrics run`'s first use fetches the Spark connector jars from the packaged POM
        # (metrics.session imports no pyspark until a session starts).
        proc = _run([str(venv / "bin" / "python"), "-c",
                     "from metrics.session import connector_jars; print(len(connector_jars()))"],
                    cwd=work, env=env)
        assert proc.returncode == 0 and proc.stdout.strip() == "4", proc.stderr[-3000:]
        assert f"-f {site / 'metrics' / 'resources' / 'spark' / 'pom.xml'}" in mvn_log.read_text()
    finally:
        for g in group:
            g.close()
        down = _run([rackwise, "testbed", "down"], cwd=work, env=env)
        bed.down()
    assert down.returncode == 0, down.stderr[-3000:]
    assert not [p for p in ports if _listening(p)], "a testbed port is still open"
    print(f"wheel build, install and commands took {time.monotonic() - began:.0f}s "
          f"(mvn {'offline' if offline else 'online'})")
