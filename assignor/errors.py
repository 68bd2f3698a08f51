"""Errors of the pure assignment layer."""

from __future__ import annotations

from protocol.errors import RackwiseError


class AssignorError(RackwiseError):
    """An assignment input that cannot be planned (the message says why and what to change)."""


class SolverError(AssignorError):
    """The min-cost-flow solver did not return an optimal solution."""
