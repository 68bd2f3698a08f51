"""Wire primitives of Kafka's non-flexible message formats, and of Java's DataOutputStream.

Every read checks the bytes left before it touches them and raises ProtocolError, never
struct.error or IndexError; every count is checked against the bytes left *before* a list
is built from it, so a 4-byte length of 2**31 cannot make us allocate anything.

Kafka's generated messages (ConsumerProtocol*, Streams' SubscriptionInfoData) use int16
lengths for strings (null = -1) and int32 lengths for bytes and arrays (null = -1). Streams'
AssignmentInfo is hand-written with ``DataOutputStream``: ``writeUTF`` (an unsigned 16-bit
length and *modified* UTF-8, where U+0000 is ``c0 80`` and a character above U+FFFF is two
3-byte surrogates) and ``writeChars`` (UTF-16 code units).
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from typing import TypeVar

from protocol.errors import ProtocolError

T = TypeVar("T")

_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_UUID = struct.Struct(">QQ")

_INT32_ARRAYS: dict[int, struct.Struct] = {}

MAX_STRING = 0x7FFF  # Kafka's Readable.readString rejects longer int16 lengths
MAX_JAVA_UTF = 0xFFFF  # DataOutputStream.writeUTF's unsigned 16-bit length


class Reader:
    """A cursor over an immutable buffer: every method checks bounds first."""

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf: bytes, pos: int = 0) -> None:
        self.buf = buf if type(buf) is bytes else bytes(buf)
        self.pos = pos
        self.end = len(buf)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def _need(self, n: int, what: str) -> int:
        pos = self.pos
        if n > self.end - pos:
            raise ProtocolError(
                f"truncated input: {what} needs {n} bytes at offset {pos}, "
                f"only {self.end - pos} left"
            )
        self.pos = pos + n
        return pos

    def int8(self) -> int:
        pos = self._need(1, "int8")
        return int(_I8.unpack_from(self.buf, pos)[0])

    def int16(self) -> int:
        pos = self._need(2, "int16")
        return int(_I16.unpack_from(self.buf, pos)[0])

    def int32(self) -> int:
        pos = self.pos
        if pos + 4 > self.end:
            self._need(4, "int32")
        self.pos = pos + 4
        return int(_I32.unpack_from(self.buf, pos)[0])

    def int64(self) -> int:
        pos = self._need(8, "int64")
        return int(_I64.unpack_from(self.buf, pos)[0])

    def uuid(self) -> uuid.UUID:
        pos = self._need(16, "uuid")
        return uuid.UUID(bytes=bytes(self.buf[pos : pos + 16]))

    def raw(self, n: int, what: str) -> bytes:
        pos = self._need(n, what)
        return bytes(self.buf[pos : pos + n])

    def count(self, min_item_size: int, what: str) -> int:
        """An int32 element count, checked against the bytes left before anything is built."""
        pos = self.pos
        if pos + 4 > self.end:
            raise ProtocolError(f"truncated input: {what} count at offset {pos}")
        self.pos = pos + 4
        n = int(_I32.unpack_from(self.buf, pos)[0])
        if n < 0:
            raise ProtocolError(f"{what}: negative count {n} in a non-nullable array")
        if n * min_item_size > self.end - self.pos:
            raise ProtocolError(
                f"{what}: count {n} needs at least {n * min_item_size} bytes, "
                f"only {self.end - self.pos} left"
            )
        return n

    def int32_array(self, what: str) -> list[int]:
        """A non-nullable int32 array in one unpack (count checked first)."""
        buf = self.buf
        pos = self.pos
        if pos + 4 > self.end:
            raise ProtocolError(f"truncated input: {what} count at offset {pos}")
        n = int(_I32.unpack_from(buf, pos)[0])
        pos += 4
        if n < 0 or pos + 4 * n > self.end:
            raise ProtocolError(f"{what}: count {n} does not fit the {self.end - pos} bytes left")
        self.pos = pos + 4 * n
        fmt = _INT32_ARRAYS.get(n)
        if fmt is None:
            fmt = struct.Struct(f">{n}i")
            if n <= 4096:
                _INT32_ARRAYS[n] = fmt
        return list(fmt.unpack_from(buf, pos))

    def string(self, what: str, nullable: bool = False) -> str | None:
        """Kafka string: int16 length, UTF-8 bytes; -1 is null where the field is nullable."""
        # Inlined (no int16()/_need() calls): this is the hot path of every decode.
        buf = self.buf
        pos = self.pos
        if pos + 2 > self.end:
            raise ProtocolError(f"truncated input: {what} length at offset {pos}")
        n = (buf[pos] << 8) | buf[pos + 1]
        if n & 0x8000:
            if n == 0xFFFF and nullable:
                self.pos = pos + 2
                return None
            raise ProtocolError(f"{what}: invalid string length {n - 0x10000}")
        start = pos + 2
        stop = start + n
        if stop > self.end:
            raise ProtocolError(
                f"truncated input: {what} needs {n} bytes at offset {start}, "
                f"only {self.end - start} left"
            )
        self.pos = stop
        try:
            return buf[start:stop].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"{what}: invalid UTF-8 at byte {start + exc.start}") from None

    def string_array(self, what: str) -> list[str]:
        """A non-nullable array of non-nullable strings (every topic list), loop inlined."""
        n = self.count(2, what)
        buf = self.buf
        pos = self.pos
        end = self.end
        out: list[str] = []
        append = out.append
        try:
            for _ in range(n):
                if pos + 2 > end:
                    raise ProtocolError(f"truncated input: {what} length at offset {pos}")
                size = (buf[pos] << 8) | buf[pos + 1]
                if size & 0x8000:
                    raise ProtocolError(f"{what}: invalid string length {size - 0x10000}")
                pos += 2
                stop = pos + size
                if stop > end:
                    raise ProtocolError(f"truncated input: {what} needs {size} bytes at {pos}")
                append(buf[pos:stop].decode("utf-8"))
                pos = stop
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"{what}: invalid UTF-8 at byte {pos + exc.start}") from None
        self.pos = pos
        return out

    def string_int32s_array(self, make: Callable[[str, list[int]], T], what: str) -> list[T]:
        """``[{string, []int32}]`` (every TopicPartition list) in one inlined loop.

        The hottest shape of the consumer protocol; ``make(topic, partitions)`` builds each
        entry. Same checks as the general path: every length and count before it is used.
        """
        n = self.count(6, what)
        buf = self.buf
        pos = self.pos
        end = self.end
        out: list[T] = []
        append = out.append
        unpack_count = _I32.unpack_from
        cache = _INT32_ARRAYS
        try:
            for _ in range(n):
                if pos + 2 > end:
                    raise ProtocolError(f"truncated input: {what} topic at offset {pos}")
                size = (buf[pos] << 8) | buf[pos + 1]
                if size & 0x8000:
                    raise ProtocolError(f"{what}: invalid string length {size - 0x10000}")
                pos += 2
                stop = pos + size
                if stop + 4 > end:
                    raise ProtocolError(f"truncated input: {what} entry at offset {pos}")
                topic = buf[pos:stop].decode("utf-8")
                count = unpack_count(buf, stop)[0]
                pos = stop + 4
                if count < 0 or pos + 4 * count > end:
                    raise ProtocolError(f"{what}: count {count} does not fit the "
                                        f"{end - pos} bytes left")
                fmt = cache.get(count)
                if fmt is None:
                    fmt = struct.Struct(f">{count}i")
                    if count <= 4096:
                        cache[count] = fmt
                append(make(topic, list(fmt.unpack_from(buf, pos))))
                pos += 4 * count
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"{what}: invalid UTF-8 at byte {pos + exc.start}") from None
        self.pos = pos
        return out

    def bytes_(self, what: str, nullable: bool = False) -> bytes | None:
        """Kafka bytes: int32 length, raw bytes; -1 is null where the field is nullable."""
        n = self.int32()
        if n < 0:
            if n == -1 and nullable:
                return None
            raise ProtocolError(f"{what}: invalid bytes length {n}")
        return self.raw(n, what)

    def java_utf(self, what: str) -> str:
        """DataInputStream.readUTF: unsigned int16 length, modified UTF-8."""
        pos = self._need(2, what)
        n = int(_U16.unpack_from(self.buf, pos)[0])
        return decode_modified_utf8(self.raw(n, what), what)

    def utf16_chars(self, what: str) -> str:
        """int32 count of UTF-16 code units, then the units big-endian (DataOutput.writeChars)."""
        n = self.count(2, what)
        data = self.raw(2 * n, what)
        try:
            return data.decode("utf-16-be")
        except UnicodeDecodeError:
            raise ProtocolError(f"{what}: invalid UTF-16 (unpaired surrogate)") from None


# ---- writers: append to a bytearray ------------------------------------------------------


def w_int8(out: bytearray, v: int) -> None:
    out += _I8.pack(v)


def w_int16(out: bytearray, v: int) -> None:
    out += _I16.pack(v)


def w_int32(out: bytearray, v: int) -> None:
    out += _I32.pack(v)


def w_int64(out: bytearray, v: int) -> None:
    out += _I64.pack(v)


def w_uuid(out: bytearray, v: uuid.UUID) -> None:
    out += v.bytes


def w_int32_array(out: bytearray, values: list[int]) -> None:
    n = len(values)
    out += struct.pack(f">i{n}i", n, *values)


def w_string(out: bytearray, v: str | None, what: str) -> None:
    if v is None:
        out += b"\xff\xff"
        return
    data = v.encode("utf-8")
    if len(data) > MAX_STRING:
        raise ProtocolError(f"{what}: {len(data)} bytes is longer than a Kafka string allows")
    out += _I16.pack(len(data))
    out += data


def w_bytes(out: bytearray, v: bytes | None) -> None:
    if v is None:
        out += b"\xff\xff\xff\xff"
        return
    out += _I32.pack(len(v))
    out += v


def w_java_utf(out: bytearray, v: str, what: str) -> None:
    data = encode_modified_utf8(v)
    if len(data) > MAX_JAVA_UTF:
        raise ProtocolError(f"{what}: {len(data)} bytes is longer than writeUTF allows")
    out += _U16.pack(len(data))
    out += data


def w_utf16_chars(out: bytearray, v: str) -> None:
    data = v.encode("utf-16-be", "surrogatepass")
    out += _I32.pack(len(data) // 2)
    out += data


# ---- Java's modified UTF-8 ---------------------------------------------------------------


def encode_modified_utf8(s: str) -> bytes:
    """What DataOutputStream.writeUTF writes: NUL as c0 80, non-BMP as two 3-byte surrogates."""
    if s.isascii() and "\x00" not in s:
        return s.encode("ascii")
    units = s.encode("utf-16-be", "surrogatepass")
    code_units = "".join(map(chr, struct.unpack(f">{len(units) // 2}H", units)))
    return code_units.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")


def decode_modified_utf8(data: bytes, what: str) -> str:
    """DataInputStream.readUTF's decoding; malformed input raises ProtocolError."""
    if data.isascii():
        return data.decode("ascii")
    if any(b >= 0xF0 for b in data):  # 4-byte sequences are not modified UTF-8
        raise ProtocolError(f"{what}: malformed modified UTF-8 (4-byte sequence)")
    try:
        with_surrogates = data.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        # Re-pair surrogates: code units -> UTF-16 -> str (an unpaired one fails here).
        return with_surrogates.encode("utf-16-be", "surrogatepass").decode("utf-16-be")
    except UnicodeError:
        raise ProtocolError(f"{what}: malformed modified UTF-8") from None
