"""Declarative message schemas: fields listed once with wire types and versions; codecs generic.

A message is a :class:`StructType`: a Python class plus a field table in the order of Kafka's
JSON message spec, each field with the versions it exists in (``"0+"``, ``"1-6"``). A field
absent in a version is skipped on the wire and takes the class's default. For each version
the table is compiled once into a tuple of small reader/writer closures, so decoding is a
loop over pre-built functions, not a walk of the declaration on every call.

Example::

    TP = StructType("TopicPartition", TopicPartitions, [
        Field("topic", STRING, "0+"),
        Field("partitions", ArrayOf(INT32), "0+"),
    ])
    TP.decode_body(Reader(b"\\x00\\x01t\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x07"), 0)
    # TopicPartitions(topic='t', partitions=[7])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from protocol import wire
from protocol.errors import ProtocolError
from protocol.wire import Reader

T = TypeVar("T")
ReadFn = Callable[[Reader], Any]
WriteFn = Callable[[bytearray, Any], None]
NEWEST = 1 << 15  # an open-ended "N+" version range


class WireType:
    """A wire type: knows its smallest encoding and builds a reader/writer for a version."""

    name = "?"

    def min_size(self, version: int) -> int:
        raise NotImplementedError

    def reader(self, version: int, what: str) -> ReadFn:
        raise NotImplementedError

    def writer(self, version: int, what: str) -> WriteFn:
        raise NotImplementedError

    def read_expr(self, version: int, what: str, ns: dict[str, Any]) -> str:
        """A Python expression reading this value from ``r`` (used to compile struct readers)."""
        name = f"_rd{len(ns)}"
        ns[name] = self.reader(version, what)
        return f"{name}(r)"


class _Primitive(WireType):
    def __init__(self, name: str, size: int, make_reader: Callable[[str], ReadFn],
                 make_writer: Callable[[str], WriteFn], call: str) -> None:
        self.name = name
        self._size = size
        self._make_reader = make_reader
        self._make_writer = make_writer
        self._call = call  # the Reader method call, "{w}" standing for the field's name

    def read_expr(self, version: int, what: str, ns: dict[str, Any]) -> str:
        return "r." + self._call.format(w=repr(what))

    def min_size(self, version: int) -> int:
        return self._size

    def reader(self, version: int, what: str) -> ReadFn:
        return self._make_reader(what)

    def writer(self, version: int, what: str) -> WriteFn:
        return self._make_writer(what)


def _not_null(what: str, write: WriteFn) -> WriteFn:
    def w(out: bytearray, v: Any) -> None:
        if v is None:
            raise ProtocolError(f"{what} is not nullable")
        write(out, v)

    return w


INT8 = _Primitive("int8", 1, lambda w: Reader.int8, lambda w: wire.w_int8,
                  "int8()")
INT16 = _Primitive("int16", 2, lambda w: Reader.int16, lambda w: wire.w_int16,
                   "int16()")
INT32 = _Primitive("int32", 4, lambda w: Reader.int32, lambda w: wire.w_int32,
                   "int32()")
INT64 = _Primitive("int64", 8, lambda w: Reader.int64, lambda w: wire.w_int64,
                   "int64()")
UUID = _Primitive("uuid", 16, lambda w: Reader.uuid, lambda w: wire.w_uuid,
                  "uuid()")
STRING = _Primitive(
    "string", 2, lambda w: lambda r: r.string(w),
    lambda w: _not_null(w, lambda out, v: wire.w_string(out, v, w)), "string({w})")
NULLABLE_STRING = _Primitive(
    "nullable string", 2, lambda w: lambda r: r.string(w, nullable=True),
    lambda w: lambda out, v: wire.w_string(out, v, w), "string({w}, True)")
BYTES = _Primitive(
    "bytes", 4, lambda w: lambda r: r.bytes_(w), lambda w: _not_null(w, wire.w_bytes),
    "bytes_({w})")
NULLABLE_BYTES = _Primitive(
    "nullable bytes", 4, lambda w: lambda r: r.bytes_(w, nullable=True), lambda w: wire.w_bytes,
    "bytes_({w}, True)")
JAVA_UTF = _Primitive(
    "java utf", 2, lambda w: lambda r: r.java_utf(w),
    lambda w: _not_null(w, lambda out, v: wire.w_java_utf(out, v, w)), "java_utf({w})")
UTF16_CHARS = _Primitive(
    "utf-16 chars", 4, lambda w: lambda r: r.utf16_chars(w),
    lambda w: _not_null(w, wire.w_utf16_chars), "utf16_chars({w})")


class ArrayOf(WireType):
    """int32 count then the elements; the count is checked against the bytes left first."""

    def __init__(self, item: WireType) -> None:
        self.item = item
        self.name = f"[]{item.name}"

    def min_size(self, version: int) -> int:
        return 4

    def reader(self, version: int, what: str) -> ReadFn:
        if self.item is INT32:
            return lambda r: r.int32_array(what)
        if self.item is STRING:
            return lambda r: r.string_array(what)
        read_item = self.item.reader(version, what)
        # An element never takes less than one byte on the wire, even if all its fields
        # are absent in this version: the bound must still stop a huge count.
        item_size = max(1, self.item.min_size(version))

        def read(r: Reader) -> list[Any]:
            return [read_item(r) for _ in range(r.count(item_size, what))]

        return read

    def read_expr(self, version: int, what: str, ns: dict[str, Any]) -> str:
        if self.item is INT32:
            return f"r.int32_array({what!r})"
        if self.item is STRING:
            return f"r.string_array({what!r})"
        if isinstance(self.item, StructType) and self.item.is_topic_partitions(version):
            make = f"_mk{len(ns)}"
            ns[make] = self.item.cls
            return f"r.string_int32s_array({make}, {what!r})"
        item = self.item.read_expr(version, what, ns)
        size = max(1, self.item.min_size(version))
        return f"[{item} for _ in range(r.count({size}, {what!r}))]"

    def writer(self, version: int, what: str) -> WriteFn:
        if self.item is INT32:
            return lambda out, v: wire.w_int32_array(out, v)
        write_item = self.item.writer(version, what)

        def write(out: bytearray, values: Any) -> None:
            if values is None:
                raise ProtocolError(f"{what} is not nullable")
            wire.w_int32(out, len(values))
            for v in values:
                write_item(out, v)

        return write


def _parse_versions(spec: str) -> tuple[int, int]:
    if spec.endswith("+"):
        return int(spec[:-1]), NEWEST
    if "-" in spec:
        lo, hi = spec.split("-")
        return int(lo), int(hi)
    return int(spec), int(spec)


@dataclass(frozen=True)
class Field:
    """One row of a message's field table, in wire order."""

    name: str
    type: WireType
    versions: str = "0+"
    about: str = ""

    def present(self, version: int) -> bool:
        lo, hi = _parse_versions(self.versions)
        return lo <= version <= hi


class StructType(WireType, Generic[T]):
    """A message or nested struct: a Python class and its field table."""

    def __init__(self, name: str, cls: Callable[..., T], fields: Sequence[Field]) -> None:
        self.name = name
        self.cls = cls
        self.fields = tuple(fields)
        self._readers: dict[int, Callable[..., T]] = {}
        self._writers: dict[int, tuple[tuple[str, WriteFn], ...]] = {}

    def fields_at(self, version: int) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.present(version))

    def min_size(self, version: int) -> int:
        return sum(f.type.min_size(version) for f in self.fields_at(version))

    def is_topic_partitions(self, version: int) -> bool:
        """``{string, []int32}`` whose class takes them positionally in that order: such
        arrays get the fused reader (the consumer protocol's hottest shape)."""
        fields = self.fields_at(version)
        if len(fields) != 2 or fields[0].type is not STRING:
            return False
        second = fields[1].type
        if not (isinstance(second, ArrayOf) and second.item is INT32):
            return False
        declared = [f.name for f in dataclasses.fields(self.cls)] \
            if dataclasses.is_dataclass(self.cls) else []
        return declared == [f.name for f in fields]

    def _constructor_expr(self, version: int, ns: dict[str, Any], extra: str = "") -> str:
        """Source of ``Cls(a=r.int32(), b=r.string('X.b'))``: keyword arguments are evaluated
        left to right, which is wire order, and nested structs are inlined the same way."""
        cls_name = f"_cls{len(ns)}"
        ns[cls_name] = self.cls
        args = [f"{f.name}={f.type.read_expr(version, f'{self.name}.{f.name}', ns)}"
                for f in self.fields_at(version)]
        if extra:
            args.append(extra)
        return f"{cls_name}({', '.join(args)})"

    def _compiled_reader(self, version: int) -> Callable[..., T]:
        """Compile (once per version) ``_read(r, **extra)`` from the field table, so a decode
        runs no interpretive loop over the declaration: the table *is* the code."""
        fn = self._readers.get(version)
        if fn is None:
            ns: dict[str, Any] = {}
            body = self._constructor_expr(version, ns, extra="**extra")
            exec(f"def _read(r, **extra):\n    return {body}\n", ns)  # noqa: S102 - own table
            fn = ns["_read"]
            self._readers[version] = fn
        return fn

    def _compiled_writers(self, version: int) -> tuple[tuple[str, WriteFn], ...]:
        plan = self._writers.get(version)
        if plan is None:
            plan = tuple((f.name, f.type.writer(version, f"{self.name}.{f.name}"))
                         for f in self.fields_at(version))
            self._writers[version] = plan
        return plan

    def decode_body(self, r: Reader, layout: int, **extra: Any) -> T:
        """Read the fields of version ``layout``; ``extra`` are set on the object as given."""
        return self._compiled_reader(layout)(r, **extra)

    def encode_body(self, out: bytearray, value: Any, version: int) -> None:
        for name, write in self._compiled_writers(version):
            write(out, getattr(value, name))

    def reader(self, version: int, what: str) -> ReadFn:
        return self._compiled_reader(version)

    def read_expr(self, version: int, what: str, ns: dict[str, Any]) -> str:
        return self._constructor_expr(version, ns)

    def writer(self, version: int, what: str) -> WriteFn:
        plan = self._compiled_writers(version)

        def write(out: bytearray, value: Any) -> None:
            for name, wr in plan:
                wr(out, getattr(value, name))

        return write
