"""``rackwise decode`` and ``rackwise schema plan`` through the real CLI entry point."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main
from protocol.consumer import (
    Assignment,
    Subscription,
    TopicPartitions,
    encode_assignment,
    encode_subscription,
)

pytestmark = pytest.mark.unit

SUB = Subscription(["t1"], None, [TopicPartitions("t1", [0, 1])], 5, "az1")


def test_decode_hex_prints_design_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", encode_subscription(SUB).hex()]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"version": 3, "topics": ["t1"], "user_data": None,
                   "owned_partitions": [{"topic": "t1", "partitions": [0, 1]}],
                   "generation_id": 5, "rack_id": "az1"}


def test_decode_file_raw_and_assignment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "a.bin"
    f.write_bytes(encode_assignment(Assignment([TopicPartitions("x", [7])], b"\x01")))
    assert main(["decode", "--assignment", "--file", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["assigned_partitions"] == [{"topic": "x", "partitions": [7]}]
    assert out["user_data"] == "AQ=="


def test_decode_stdin_hex(monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    hexed = encode_subscription(SUB, 0).hex()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{hexed}\n".encode())))
    assert main(["decode", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == 0


@pytest.mark.parametrize("argv", [
    ["decode", "--hex", "0003000000"],           # truncated
    ["decode", "--hex", "zz"],                   # not hex
    ["decode", "--assignment", "--hex", ""],     # empty
    ["decode", "--file", "/nonexistent/x.bin"],  # unreadable
])
def test_malformed_input_exits_2_with_one_line(argv: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("rackwise decode: error: ") and err.count("\n") == 1


def test_decode_subprocess_no_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "agent.cli", "decode", "--hex", "ffff"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "negative version" in proc.stderr


def test_schema_plan_is_the_plan_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    from protocol.plan import AssignmentPlan

    assert main(["schema", "plan"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema == json.loads(json.dumps(AssignmentPlan.model_json_schema(), sort_keys=True))
    assert {"group_id", "generation", "members", "summary"} <= set(schema["properties"])
