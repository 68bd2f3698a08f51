"""The project's error tree. Every error rackwise raises on purpose derives from RackwiseError."""

from __future__ import annotations


class RackwiseError(Exception):
    """Root of every error rackwise raises on purpose.

    The message says what was wrong and what to do.
    """


class ProtocolError(RackwiseError):
    """Bytes that are not a valid Kafka consumer-protocol or Kafka Streams message.

    The only exception a decoder lets escape: truncated buffers, negative or oversized
    lengths, counts larger than the bytes left, invalid UTF-8, unknown versions.
    """


class PlanError(RackwiseError):
    """A plan document that does not follow the AssignmentPlan schema."""
