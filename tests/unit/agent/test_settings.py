"""Agent settings (agent.config.settings): a file, RACKWISE_* variables, and secrets kept out of output."""

from __future__ import annotations

import json

import pytest

from agent.config.settings import load_settings

pytestmark = pytest.mark.unit


def test_settings_env_file_and_redaction(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "agent.toml"
    cfg.write_text(
        '[rackwise]\nbootstrap = "file:9092"\n[rackwise.metadata]\ninterval_s = 7\n'
        '[rackwise.kafka]\n"ssl.key.password" = "pem-secret"\n'
    )
    monkeypatch.setenv("RACKWISE_KAFKA__SASL_PASSWORD", "hunter2")
    monkeypatch.setenv("RACKWISE_KAFKA__SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("RACKWISE_METADATA__DEBOUNCE_S", "4")
    s = load_settings(cfg)
    assert s.bootstrap == "file:9092" and s.metadata.interval_s == 7 and s.metadata.debounce_s == 4
    conf = s.client_config()
    assert conf["sasl.password"] == "hunter2" and conf["ssl.key.password"] == "pem-secret"
    assert conf["security.protocol"] == "SASL_SSL"
    shown = json.dumps(s.redacted()) + repr(s) + str(s)
    assert "hunter2" not in shown and "pem-secret" not in shown
    assert load_settings(cfg, bootstrap="cli:1").bootstrap == "cli:1"
    monkeypatch.setenv("RACKWISE_BOOTSTRAP", "env:1")
    assert load_settings(cfg).bootstrap == "env:1"
