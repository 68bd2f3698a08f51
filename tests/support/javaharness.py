"""Build and run the small Java peer programs (golden vectors, parity harnesses).

Convention: each Java program is a Maven project in ``tests/java/<name>/`` or
``bench/java/<name>/``. It is built with ``mvn package dependency:copy-dependencies`` into
``target/classes`` and ``target/lib`` and run as ``java -cp classes:lib/* MAIN``. Building
happens on first use (``make java`` does it up front), so a test never depends on a step
someone forgot.

Kafka releases: a project whose pom has a ``kafka.version`` property is built against
RACKWISE_KAFKA_VERSION when that differs from the pom's own (or against ``kafka_version=``).
Such a build goes to ``target/kafka-<version>/{classes,lib}``: Maven copies that release's
jars (``-Dkafka.version=``) and ``javac`` compiles the same sources against them, so builds
of different releases sit side by side and never replace the default one in ``target/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from agent.dev import kafkaversion, paths

ROOT = Path(__file__).resolve().parents[2]


class JavaBuildError(RuntimeError):
    pass


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise JavaBuildError(f"'{tool}' is not on PATH: install OpenJDK 17 and Maven "
                                 "(apt-get install openjdk-17-jdk-headless maven)")
    return path


def pom_kafka_version(project: str | Path) -> str | None:
    """The pom's own ``kafka.version`` (None: the project does not depend on Kafka by version)."""
    match = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", (ROOT / project / "pom.xml").read_text())
    return match.group(1).strip() if match else None


def _wanted_version(project: str | Path, kafka_version: str | None) -> str | None:
    """The release to build against, or None for the pom's own (the ``target/`` build)."""
    own = pom_kafka_version(project)
    if own is None:
        return None
    wanted = kafka_version or kafka_version_from_env()
    return None if wanted in (None, own) else wanted


def kafka_version_from_env() -> str | None:
    return kafkaversion.kafka_version() if os.environ.get(kafkaversion.ENV) else None


def output_dir(project: str | Path, kafka_version: str | None = None) -> Path:
    """Where the build of ``project`` for that release lives (``classes/``, ``lib/``)."""
    version = _wanted_version(project, kafka_version)
    target = ROOT / project / "target"
    return target if version is None else target / f"kafka-{version}"


def build(project: str | Path, kafka_version: str | None = None) -> Path:
    """Build a Java project (relative to the repo root) if its sources are newer; return its
    output dir (``target/``, or ``target/kafka-<version>/`` for another Kafka release)."""
    pdir = ROOT / project
    pom = pdir / "pom.xml"
    if not pom.exists():
        raise JavaBuildError(f"no pom.xml in {pdir}")
    version = _wanted_version(project, kafka_version)
    out = output_dir(project, kafka_version)
    stamp = out / ".built"
    sources = [pom, *pdir.glob("src/**/*")]
    newest = max(p.stat().st_mtime for p in sources)
    if stamp.exists() and stamp.stat().st_mtime >= newest:
        return out
    mvn = _require("mvn")
    # A dependency dropped from the pom must not linger in lib/ (two SLF4J bindings did).
    shutil.rmtree(out / "lib", ignore_errors=True)
    if version is None:
        cmd = [mvn, "-B", "-q", "-f", str(pom), "package", "dependency:copy-dependencies",
               "-DskipTests", "-DincludeScope=runtime", f"-DoutputDirectory={out / 'lib'}"]
    else:
        cmd = [mvn, "-B", "-q", "-f", str(pom), "dependency:copy-dependencies", "-DincludeScope=runtime",
               f"-Dkafka.version={version}", f"-DoutputDirectory={out / 'lib'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        raise JavaBuildError(f"mvn failed for {pdir} (Kafka {version or pom_kafka_version(project)}):\n"
                             f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    if version is not None:
        _javac(pdir, out, version)
    stamp.touch()
    return out


def _javac(pdir: Path, out: Path, version: str) -> None:
    """Compile the project's main sources against ``out/lib`` (one Kafka release's jars)."""
    javac = _require("javac")
    classes = out / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    java_sources = sorted(str(p) for p in (pdir / "src" / "main" / "java").rglob("*.java"))
    proc = subprocess.run([javac, "--release", "17", "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
                           "-cp", str(out / "lib" / "*"), *java_sources],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise JavaBuildError(f"javac failed for {pdir} against Kafka {version}:\n{proc.stderr[-4000:]}")
    resources = pdir / "src" / "main" / "resources"
    if resources.is_dir():
        shutil.copytree(resources, classes, dirs_exist_ok=True)


def classpath(project: str | Path, kafka_version: str | None = None) -> str:
    out = build(project, kafka_version)
    return os.pathsep.join([str(out / "classes"), str(out / "lib" / "*")])


def run(project: str | Path, main_class: str, *args: str, stdin: str | bytes | None = None,
        timeout: float = 600, heap: str = "-Xmx2g",
        kafka_version: str | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run MAIN of a built project; raise JavaBuildError with its stderr when it fails."""
    java = _require("java")
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run([java, heap, "-cp", classpath(project, kafka_version), main_class, *args],
                          input=data, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace")[-4000:]
        raise JavaBuildError(f"{main_class} exited {proc.returncode}:\n{err}")
    return proc


def run_json_lines(project: str, main_class: str, problems: list[dict[str, Any]], *,
                   timeout: float = 600, heap: str = "-Xmx1g") -> list[dict[str, Any]]:
    """Run a parity harness on the plug-in jar (``RACKWISE_PLUGIN_JAR``, else the one ``make
    plugins`` built): one JSON line per problem in, one answer per problem out, in order, all
    in one JVM."""
    jar = paths.plugin_jar() or ROOT / "plugins" / "target" / "rackwise-plugins.jar"
    if not jar.exists():
        raise JavaBuildError(f"{jar} is missing: `make plugins` builds it")
    java = _require("java")
    cp = os.pathsep.join([classpath(project), str(jar)])
    data = "".join(json.dumps(p, separators=(",", ":")) + "\n" for p in problems).encode()
    proc = subprocess.run([java, heap, "-cp", cp, main_class], input=data, capture_output=True,
                          timeout=timeout)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace")[-4000:]
        raise JavaBuildError(f"{main_class} exited {proc.returncode}:\n{err}")
    answers: list[dict[str, Any]] = [json.loads(line) for line in proc.stdout.decode().splitlines()
                                     if line.strip()]
    if len(answers) != len(problems):
        raise JavaBuildError(f"{main_class} answered {len(answers)} of {len(problems)} problems:\n"
                             f"{proc.stderr.decode(errors='replace')[-4000:]}")
    return answers
