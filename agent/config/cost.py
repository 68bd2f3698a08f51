"""What a cross-rack byte costs, and which rack a host without ``client.rack`` sits in.

``[cost]`` in the agent settings (``rackwise audit --config F`` reads it too)::

    [cost]
    price_per_gb = 0.01          # $ per GB per billed direction (docs/traffic.md)
    billed_directions = 2        # AWS bills both zones; Google Cloud only the sender: 1
    host_racks = { "10.0.1.0/24" = "az1", "10.0.2.0/24" = "az2" }

A member that sets no ``client.rack`` still reads from the leader, but with ``host_racks``
the audit knows which rack its host (as the group coordinator saw it) is in, so what it
reads across racks is known instead of estimated. The most specific network wins.

Example::

    HostRacks.parse({"10.0.0.0/8": "az1", "10.0.2.0/24": "az2"}).rack_of("/10.0.2.7")  # "az2"
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, Field, field_validator

from protocol.errors import RackwiseError
from protocol.pricing import DEFAULT_DIRECTIONS, DEFAULT_PRICE_PER_GB, Price

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class HostMapError(RackwiseError):
    """A host-to-rack entry is not ``CIDR=RACK``; the message names it."""


@dataclass(frozen=True)
class HostRacks:
    """CIDR -> rack, looked up most specific first."""

    networks: tuple[tuple[Network, str], ...] = ()

    @classmethod
    def parse(cls, mapping: Mapping[str, str]) -> HostRacks:
        entries = []
        for cidr, rack in mapping.items():
            try:
                net = ipaddress.ip_network(str(cidr).strip(), strict=False)
            except ValueError:
                raise HostMapError(f"host rack map: {cidr!r} is not a network "
                                   "(give CIDR=RACK, e.g. 10.0.1.0/24=az1)") from None
            if not str(rack).strip():
                raise HostMapError(f"host rack map: {cidr} has an empty rack")
            entries.append((net, str(rack).strip()))
        entries.sort(key=lambda e: (-e[0].prefixlen, str(e[0])))
        return cls(tuple(entries))

    @classmethod
    def from_args(cls, items: list[str]) -> dict[str, str]:
        """``["10.0.1.0/24=az1", ...]`` (the CLI's --rack-map) as a mapping."""
        out: dict[str, str] = {}
        for item in items:
            cidr, sep, rack = item.partition("=")
            if not sep:
                raise HostMapError(f"--rack-map {item!r}: expected CIDR=RACK, e.g. 10.0.1.0/24=az1")
            out[cidr.strip()] = rack.strip()
        cls.parse(out)  # validate now, with the message naming the bad entry
        return out

    def rack_of(self, host: str | None) -> str | None:
        """The rack of a client host as Kafka reports it (``/10.0.2.7``), or None."""
        if not host or not self.networks:
            return None
        text = host.strip().lstrip("/").strip("[]")
        try:
            addr = ipaddress.ip_address(text)
        except ValueError:
            return None  # a host name: Kafka reports addresses, so nothing to match
        for net, rack in self.networks:
            if addr.version == net.version and addr in net:
                return rack
        return None


class CostSettings(BaseModel):
    """Price of cross-rack traffic and the hosts' racks."""

    price_per_gb: float = Field(default=DEFAULT_PRICE_PER_GB, ge=0,
                                description="$ per GB (2**30 bytes) per billed direction")
    billed_directions: int = Field(default=DEFAULT_DIRECTIONS, ge=1, le=2,
                                   description="2: sender and receiver pay (AWS); 1: one side")
    host_racks: dict[str, str] = Field(default_factory=dict,
                                       description="client host network (CIDR) -> rack")

    @field_validator("host_racks")
    @classmethod
    def _valid_networks(cls, value: dict[str, str]) -> dict[str, str]:
        try:
            HostRacks.parse(value)
        except HostMapError as exc:
            raise ValueError(str(exc)) from None
        return value

    def price(self) -> Price:
        return Price(self.price_per_gb, self.billed_directions)

    def hosts(self) -> HostRacks:
        return HostRacks.parse(self.host_racks)
