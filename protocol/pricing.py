"""What cross-rack bytes cost: one formula shared by the audit, the agent's gauges and the
metrics job (which may import nothing of the project but ``protocol``).

Cloud providers bill inter-zone traffic per GB and per direction: AWS charges $0.01/GB
when data leaves a zone *and* $0.01/GB when it enters the other one; Google Cloud charges
$0.01/GiB at the sending zone only; Azure stopped charging for it in 2024. So the default
is the list price per direction, $0.01, billed in 2 directions (AWS, the common case):
$0.02 per GB read across racks. Sources and how to set other prices: docs/traffic.md.

GB here is 2**30 bytes (how AWS and Google meter it) and a month is 730 hours (the
providers' billing month).

Example: 1 MiB/s read across racks all month, default price::

    Price().per_month(1024 * 1024)   # 51.33 (= 2,628,000 s x 1/1024 GB/s x $0.02)
"""

from __future__ import annotations

from dataclasses import dataclass

BYTES_PER_GB = 2**30
SECONDS_PER_MONTH = 730 * 3600
DEFAULT_PRICE_PER_GB = 0.01  # per direction: AWS inter-AZ and Google inter-zone list price
DEFAULT_DIRECTIONS = 2  # AWS bills the sending and the receiving zone


@dataclass(frozen=True)
class Price:
    """Price of one GB crossing racks, per billed direction, and how many directions pay."""

    per_gb: float = DEFAULT_PRICE_PER_GB
    directions: int = DEFAULT_DIRECTIONS

    def __post_init__(self) -> None:
        if self.per_gb < 0 or self.directions not in (1, 2):
            raise ValueError("price per GB must be >= 0 and billed directions 1 or 2")

    @property
    def per_gb_crossing(self) -> float:
        return self.per_gb * self.directions

    def per_month(self, bytes_per_s: float | None) -> float | None:
        """Dollars per month for a steady ``bytes_per_s`` across racks (None stays None)."""
        if bytes_per_s is None:
            return None
        return round(bytes_per_s * SECONDS_PER_MONTH / BYTES_PER_GB * self.per_gb_crossing, 2)
