"""Build and run the small Java peer programs (golden vectors, parity harnesses).

Convention: each Java program is a Maven project in ``tests/java/<name>/`` or
``bench/java/<name>/``. It is built with ``mvn package dependency:copy-dependencies`` into
``target/classes`` and ``target/lib`` and run as ``java -cp classes:lib/* MAIN``. Building
happens on first use (``make java`` does it up front), so a test never depends on a step
someone forgot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class JavaBuildError(RuntimeError):
    pass


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise JavaBuildError(f"'{tool}' is not on PATH: install OpenJDK 17 and Maven "
                                 "(apt-get install openjdk-17-jdk-headless maven)")
    return path


def build(project: str | Path) -> Path:
    """Build a Java project (relative to the repo root) if its sources are newer; return its dir."""
    pdir = ROOT / project
    pom = pdir / "pom.xml"
    if not pom.exists():
        raise JavaBuildError(f"no pom.xml in {pdir}")
    stamp = pdir / "target" / ".built"
    sources = [pom, *pdir.glob("src/**/*")]
    newest = max(p.stat().st_mtime for p in sources)
    if stamp.exists() and stamp.stat().st_mtime >= newest:
        return pdir
    mvn = _require("mvn")
    # A dependency dropped from the pom must not linger in lib/ (two SLF4J bindings did).
    shutil.rmtree(pdir / "target" / "lib", ignore_errors=True)
    cmd = [mvn, "-B", "-q", "-f", str(pom), "package", "dependency:copy-dependencies",
           "-DskipTests", "-DincludeScope=runtime", f"-DoutputDirectory={pdir / 'target' / 'lib'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        raise JavaBuildError(f"mvn failed for {pdir}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    stamp.touch()
    return pdir


def classpath(project: str | Path) -> str:
    pdir = build(project)
    return os.pathsep.join([str(pdir / "target" / "classes"), str(pdir / "target" / "lib" / "*")])


def run(project: str | Path, main_class: str, *args: str, stdin: str | bytes | None = None,
        timeout: float = 600, heap: str = "-Xmx2g") -> subprocess.CompletedProcess[bytes]:
    """Run MAIN of a built project; raise JavaBuildError with its stderr when it fails."""
    java = _require("java")
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run([java, heap, "-cp", classpath(project), main_class, *args],
                          input=data, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace")[-4000:]
        raise JavaBuildError(f"{main_class} exited {proc.returncode}:\n{err}")
    return proc
