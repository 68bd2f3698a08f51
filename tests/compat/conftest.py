"""The compat matrix's selection and report.

Without ``-m`` naming ``compat`` (as ``make test`` runs), only the cells marked
``compat_smoke`` are collected. With RACKWISE_COMPAT_REPORT=PATH (``make compat``), every
cell's result, reason and time go to a Markdown table at PATH when the session ends.
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import sys
from pathlib import Path

import pytest

# cell -> (result, reason, date, the file that holds it: most cells are in tests/compat, a few
# are parameters of a test elsewhere marked ``compat``)
_RESULTS: dict[str, tuple[str, str, str, str]] = {}
_MATRIX = "tests/compat"


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "compat" in (config.getoption("markexpr") or ""):
        return
    keep, drop = [], []
    for item in items:
        in_matrix = item.get_closest_marker("compat") is not None
        (drop if in_matrix and item.get_closest_marker("compat_smoke") is None else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_configure(config: pytest.Config) -> None:
    # A conftest's report hooks see only the items under its directory; the matrix also has
    # cells elsewhere (a test's parameter marked ``compat``), so the report is a plugin.
    if not config.pluginmanager.has_plugin(_REPORT):
        config.pluginmanager.register(_Report(), _REPORT)


_REPORT = "rackwise-compat-report"


class _Report:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
        outcome = yield
        _record(item, outcome.get_result())

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        _write()


def _record(item: pytest.Item, report: pytest.TestReport) -> None:
    if item.get_closest_marker("compat") is None:
        return
    cell = item.callspec.id if hasattr(item, "callspec") else item.name
    where = item.nodeid.split("::")[0]
    where = _MATRIX if where.startswith(_MATRIX + "/") else where
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.passed:
            reason = dict(report.user_properties).get("compat_reason", "")
            _RESULTS[cell] = ("pass", str(reason), _now(), where)
        elif report.skipped:
            _RESULTS[cell] = ("skip", _short(report.longrepr), _now(), where)
        else:
            _RESULTS[cell] = ("FAIL", _short(report.longrepr), _now(), where)
        _write()  # after every cell: a run stopped half-way still leaves what it measured


def _short(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    text = str(getattr(longrepr, "reprcrash", None) and longrepr.reprcrash.message or longrepr)  # type: ignore[union-attr]
    return " ".join(text.split())[:400]


def _earlier(path: Path) -> dict[str, tuple[str, str, str, str]]:
    """The rows of an earlier report: a run of some cells (``-k``) keeps the others' rows."""
    out: dict[str, tuple[str, str, str, str]] = {}
    if not path.is_file():
        return out
    for line in path.read_text().splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) == 5 and cols[0].startswith("`") and cols[0] != "`cell`":
            command = cols[4].strip("`").split()
            where = command[3] if len(command) > 3 else _MATRIX  # pytest -m compat WHERE -k ...
            out[cols[0].strip("`")] = (cols[1], cols[2], cols[3], where)
    return out


def _write() -> None:
    path = os.environ.get("RACKWISE_COMPAT_REPORT")
    if not path or not _RESULTS:
        return
    rows = {**_earlier(Path(path)), **_RESULTS}
    when = _now()
    command = os.environ.get("RACKWISE_COMPAT_COMMAND") or " ".join(shlex.quote(a) for a in sys.argv)
    lines = [
        "# Compatibility matrix (generated)",
        "",
        f"Written by tests/compat/ and the tests marked compat elsewhere ({command}), last on {when}; "
        "a run of some cells keeps the other rows.",
        "Each cell ran on a 3-rack testbed of its broker release (tests/compat/test_compat.py says",
        "what a cell checks). Nothing here is claimed without that run; cells not listed did not run.",
        "",
        "| cell | result | reason | date | command |",
        "|---|---|---|---|---|",
    ]
    for cell, (result, reason, at, where) in sorted(rows.items(), key=lambda kv: _order(kv[0])):
        reason = reason.replace("|", "/").replace("\n", " ")
        one = f"pytest -m compat {where} -k '{cell}'"
        lines.append(f"| `{cell}` | {result} | {reason} | {at} | `{one}` |")
    Path(path).write_text("\n".join(lines) + "\n")


def _order(cell: str) -> tuple[int, str]:
    from tests.compat.cells import cells

    ids = [c.id for c in cells()]
    return (ids.index(cell), cell) if cell in ids else (len(ids), cell)
