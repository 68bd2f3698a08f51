"""Log redaction (agent.config.logs): secrets are masked at any depth."""

from __future__ import annotations

import pytest

from agent.config.logs import redact

pytestmark = pytest.mark.unit


def test_log_redaction_masks_nested_secrets() -> None:
    event = {
        "event": "x",
        "conf": {"sasl.password": "p", "bootstrap.servers": "b"},
        "sasl_password": "q",
    }
    out = redact(None, "info", event)
    assert out["conf"] == {"sasl.password": "**********", "bootstrap.servers": "b"}
    assert out["sasl_password"] == "**********"
