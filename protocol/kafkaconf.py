"""Kafka client properties as users give them: one normalisation and one secret rule.

Shared by the agent and the metrics job (which may import protocol only). Users set client
properties as ``RACKWISE_KAFKA__SASL_USERNAME`` (an environment variable: ``sasl_username``
once pydantic has split it) or as ``sasl.username`` in a file; both mean librdkafka's and
Java's dotted ``sasl.username``. A property whose name looks secret is never shown.

Example::

    property_name("SASL_USERNAME")           # "sasl.username"
    masked({"sasl.password": "hunter2"})     # {"sasl.password": "**********"}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MASK = "**********"
_SECRET_KEY = re.compile(r"password|secret|jaas|private|token|key\.pem|credential", re.IGNORECASE)


def is_secret_key(key: str) -> bool:
    """Does a property (or log field) name look like it holds a secret?"""
    return bool(_SECRET_KEY.search(key))


def property_name(key: str) -> str:
    """The dotted client property for a key given in environment form; dotted keys stay."""
    name = str(key).lower()
    return name if "." in name else name.replace("_", ".")


def masked(conf: Mapping[str, Any]) -> dict[str, Any]:
    """A copy safe to log: the values of secret-looking keys replaced by MASK."""
    return {key: (MASK if is_secret_key(str(key)) else value) for key, value in conf.items()}
