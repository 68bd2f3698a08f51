"""Wire types of Kafka's *flexible* message versions (KIP-482), for the schema tables.

Flexible versions replace int16/int32 lengths with unsigned varints holding ``length + 1``
(0 is null), and end every struct with a tagged-field buffer. These types plug into
:class:`protocol.schema.StructType` like the classic ones, so an RPC's field table is written
once, in the order of Kafka's JSON spec, exactly as the consumer protocol's tables are.

Unknown tagged fields are skipped on read (as Java does) and never written: nothing this
project sends needs one. Every length and count is checked against the bytes left before
anything is built from it, and every failure is a :class:`ProtocolError`.

Example::

    COMPACT_STRING.reader(0, "x")(Reader(b"\\x04abc"))   # 'abc'  (varint 4 = length 3 + 1)
"""

from __future__ import annotations

import struct
from typing import Any

from protocol.errors import ProtocolError
from protocol.schema import INT32, ReadFn, StructType, WireType, WriteFn
from protocol.wire import Reader

_U16 = struct.Struct(">H")


def read_uvarint(r: Reader, what: str) -> int:
    """An unsigned LEB128 varint of at most 5 bytes (Kafka's ``readUnsignedVarint``)."""
    value = 0
    for shift in range(0, 35, 7):
        if r.pos >= r.end:
            raise ProtocolError(f"truncated input: {what} varint at offset {r.pos}")
        byte = r.buf[r.pos]
        r.pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value
    raise ProtocolError(f"{what}: varint longer than 5 bytes")


def write_uvarint(out: bytearray, value: int) -> None:
    if value < 0:
        raise ProtocolError(f"unsigned varint cannot hold {value}")
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _compact_length(r: Reader, what: str, nullable: bool) -> int | None:
    n = read_uvarint(r, what) - 1
    if n < 0:
        if nullable:
            return None
        raise ProtocolError(f"{what}: null where the field is not nullable")
    if n > r.remaining:
        raise ProtocolError(f"{what}: length {n} needs more than the {r.remaining} bytes left")
    return n


class _CompactString(WireType):
    def __init__(self, nullable: bool) -> None:
        self.nullable = nullable
        self.name = "compact nullable string" if nullable else "compact string"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        nullable = self.nullable

        def read(r: Reader) -> str | None:
            n = _compact_length(r, what, nullable)
            if n is None:
                return None
            data = r.raw(n, what)
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                raise ProtocolError(f"{what}: invalid UTF-8") from None

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        nullable = self.nullable

        def write(out: bytearray, v: Any) -> None:
            if v is None:
                if not nullable:
                    raise ProtocolError(f"{what} is not nullable")
                out.append(0)
                return
            data = str(v).encode("utf-8")
            if len(data) > 0x7FFF:
                raise ProtocolError(f"{what}: {len(data)} bytes is longer than a Kafka string allows")
            write_uvarint(out, len(data) + 1)
            out += data

        return write


class _CompactBytes(WireType):
    name = "compact bytes"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        def read(r: Reader) -> bytes:
            n = _compact_length(r, what, False)
            assert n is not None
            return r.raw(n, what)

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        def write(out: bytearray, v: Any) -> None:
            write_uvarint(out, len(v) + 1)
            out += v

        return write


COMPACT_STRING = _CompactString(False)
COMPACT_NULLABLE_STRING = _CompactString(True)
COMPACT_BYTES = _CompactBytes()


class _Bool(WireType):
    name = "bool"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        def read(r: Reader) -> bool:
            return r.raw(1, what) != b"\x00"

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        return lambda out, v: out.append(1 if v else 0)


class _Uint16(WireType):
    name = "uint16"

    def min_size(self, version: int) -> int:
        return 2

    def reader(self, version: int, what: str) -> ReadFn:
        return lambda r: int(_U16.unpack(r.raw(2, what))[0])

    def writer(self, version: int, what: str) -> WriteFn:
        return lambda out, v: out.extend(_U16.pack(v))


BOOL = _Bool()
UINT16 = _Uint16()


class _TaggedFields(WireType):
    """The tagged-field buffer closing every flexible struct: skipped on read, empty on write."""

    name = "tagged fields"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        def read(r: Reader) -> None:
            for _ in range(read_uvarint(r, what)):
                read_uvarint(r, what)  # the tag
                size = read_uvarint(r, what)
                r.raw(size, what)

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        return lambda out, v: out.append(0)


TAGGED_FIELDS = _TaggedFields()


class CompactArrayOf(WireType):
    """A varint ``count + 1`` (0 is null) then the elements."""

    def __init__(self, item: WireType, nullable: bool = False) -> None:
        self.item = item
        self.nullable = nullable
        self.name = f"compact []{item.name}"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        read_item = self.item.reader(version, what)
        size = max(1, self.item.min_size(version))
        nullable = self.nullable

        def read(r: Reader) -> list[Any] | None:
            n = read_uvarint(r, what) - 1
            if n < 0:
                if nullable:
                    return None
                raise ProtocolError(f"{what}: null array where the field is not nullable")
            if n * size > r.remaining:
                raise ProtocolError(
                    f"{what}: count {n} needs at least {n * size} bytes, only {r.remaining} left"
                )
            return [read_item(r) for _ in range(n)]

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        write_item = self.item.writer(version, what)
        nullable = self.nullable

        def write(out: bytearray, values: Any) -> None:
            if values is None:
                if not nullable:
                    raise ProtocolError(f"{what} is not nullable")
                out.append(0)
                return
            write_uvarint(out, len(values) + 1)
            for v in values:
                write_item(out, v)

        return write


class NullableStruct(WireType):
    """A nullable struct field of a flexible version: int8 -1 for null, 1 then the struct."""

    def __init__(self, struct_type: StructType[Any]) -> None:
        self.struct = struct_type
        self.name = f"nullable {struct_type.name}"

    def min_size(self, version: int) -> int:
        return 1

    def reader(self, version: int, what: str) -> ReadFn:
        read_struct = self.struct.reader(version, what)

        def read(r: Reader) -> Any:
            marker = r.int8()
            if marker < 0:
                return None
            return read_struct(r)

        return read

    def writer(self, version: int, what: str) -> WriteFn:
        write_struct = self.struct.writer(version, what)

        def write(out: bytearray, v: Any) -> None:
            if v is None:
                out += b"\xff"
                return
            out += b"\x01"
            write_struct(out, v)

        return write


COMPACT_INT32_ARRAY = CompactArrayOf(INT32)
