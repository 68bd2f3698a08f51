"""The Spark schema of a published plan, derived from ``protocol.plan.AssignmentPlan``.

The plan model is the contract (docs/architecture.md § The plan); this module walks its JSON Schema
(``model_json_schema()``) so the Spark job never carries a hand-copied duplicate that could
drift. The same walk yields the validity checks (required fields, enums, consts, minimums)
that decide whether a record is a plan or goes to the ``rejected`` table. ``reason`` is an
open string (any non-empty one): a reason this job does not know is carried through as-is.

Mapping (JSON Schema -> Spark)::

    integer -> long        number -> double      boolean -> boolean
    string -> string       string/date-time -> timestamp
    array -> array<items>  object with properties -> struct
    object without properties (free-form, e.g. ``config``) -> string holding the raw JSON
    anyOf [X, null] -> X (nullable)       $ref -> the referenced definition

Example: ``PartitionPlan`` becomes ``struct<topic:string, partition:bigint,
replica_racks:array<string>, cross_rack:boolean, weight:double>``.

Extra fields that a newer plan carries are ignored, not rejected: the plan schema may only
grow (docs/architecture.md: *contract* names change by extending), so an old metrics job keeps working.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from protocol.plan import AssignmentPlan

JsonSchema = dict[str, Any]


class SchemaDerivationError(ValueError):
    """The plan model uses a JSON Schema construct this module does not map; extend _to_spark."""


def _resolve(node: JsonSchema, defs: dict[str, JsonSchema]) -> JsonSchema:
    ref = node.get("$ref")
    if ref is None:
        return node
    name = ref.rsplit("/", 1)[-1]
    if name not in defs:
        raise SchemaDerivationError(f"unresolvable $ref {ref!r}")
    return _resolve(defs[name], defs)


def _non_null(node: JsonSchema, defs: dict[str, JsonSchema]) -> tuple[JsonSchema, bool]:
    """Strip ``anyOf [X, null]``; return (X, nullable)."""
    node = _resolve(node, defs)
    options = node.get("anyOf") or node.get("oneOf")
    if options is None:
        return node, False
    real = [_resolve(o, defs) for o in options if o.get("type") != "null"]
    if len(real) != 1:
        raise SchemaDerivationError(f"union of several non-null types is not mapped: {options}")
    return real[0], len(real) != len(options)


def _to_spark(node: JsonSchema, defs: dict[str, JsonSchema]) -> DataType:
    node, _ = _non_null(node, defs)
    kind = node.get("type")
    if kind == "integer":
        return LongType()
    if kind == "number":
        return DoubleType()
    if kind == "boolean":
        return BooleanType()
    if kind == "string":
        return TimestampType() if node.get("format") == "date-time" else StringType()
    if kind == "array":
        return ArrayType(_to_spark(node.get("items", {"type": "string"}), defs), containsNull=True)
    if kind == "object":
        props = node.get("properties")
        if not props:
            return StringType()  # free-form object: keep its raw JSON text
        return StructType([StructField(name, _to_spark(sub, defs), nullable=True)
                           for name, sub in props.items()])
    raise SchemaDerivationError(f"JSON Schema node not mapped to Spark: {node}")


def json_schema() -> JsonSchema:
    return AssignmentPlan.model_json_schema()


def plan_spark_schema() -> StructType:
    """The Spark StructType for one AssignmentPlan JSON document (all fields nullable:
    presence is checked by :func:`validity_problems`, so a bad record is set aside, not lost)."""
    schema = json_schema()
    result = _to_spark(schema, schema.get("$defs", {}))
    assert isinstance(result, StructType)
    return result


# ---- validity -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One rule from the schema: a path like ``members[].partitions[].cross_rack`` and what it needs."""

    path: str
    rule: str  # "required", "enum", "const", "minimum", "min_length"
    detail: Any = None

    @property
    def message(self) -> str:
        if self.rule == "required":
            return f"{self.path}: missing or of the wrong type"
        if self.rule == "enum":
            return f"{self.path}: not one of {list(self.detail)}"
        if self.rule == "const":
            return f"{self.path}: must be {self.detail!r}"
        if self.rule == "minimum":
            return f"{self.path}: below {self.detail}"
        if self.rule == "min_length":
            return f"{self.path}: shorter than {self.detail}"
        return f"{self.path}: {self.rule}"


def schema_checks(node: JsonSchema | None = None, path: str = "",
                  defs: dict[str, JsonSchema] | None = None) -> list[Check]:
    """Every rule of the plan schema, flattened (pure: used by tests and by the Spark predicate)."""
    if node is None:
        node = json_schema()
        defs = node.get("$defs", {})
    assert defs is not None
    node, _ = _non_null(node, defs)
    checks: list[Check] = []
    if "enum" in node:
        checks.append(Check(path, "enum", tuple(node["enum"])))
    if "const" in node:
        checks.append(Check(path, "const", node["const"]))
    if "minimum" in node:
        checks.append(Check(path, "minimum", node["minimum"]))
    if "minLength" in node:
        checks.append(Check(path, "min_length", node["minLength"]))
    kind = node.get("type")
    if kind == "object" and node.get("properties"):
        required = set(node.get("required", ()))
        for name, sub in node["properties"].items():
            sub_path = f"{path}.{name}" if path else name
            if name in required:
                checks.append(Check(sub_path, "required"))
            checks.extend(schema_checks(sub, sub_path, defs))
    elif kind == "array":
        checks.extend(schema_checks(node.get("items", {}), f"{path}[]", defs))
    return checks


def _leaf_failing(value: Column, check: Check) -> Column:
    """True when ``value`` (the field the check is about) breaks ``check``."""
    if check.rule == "required":
        return value.isNull()
    if check.rule == "enum":
        return value.isNotNull() & ~value.isin(*check.detail)
    if check.rule == "const":
        return value.isNotNull() & (value != F.lit(check.detail))
    if check.rule == "minimum":
        return value.isNotNull() & (value < F.lit(check.detail))
    if check.rule == "min_length":
        return value.isNotNull() & (F.length(value) < F.lit(check.detail))
    raise SchemaDerivationError(f"unknown rule {check.rule}")


def _failing(value: Column, items: list[tuple[Check, list[str]]]) -> Column:
    """True when any of ``items`` (a check and its path below ``value``) fails.

    Checks that share a path prefix share one walk: every rule about
    ``members[].partitions[]`` is judged in a single pass over each member's partitions
    (an OR of the leaf rules), not in one pass per rule. On 10,000-partition plans that is
    the difference between one and a dozen interpreted loops per record.
    """
    conditions: list[Column] = [_leaf_failing(value, c) for c, parts in items if not parts]
    below: dict[str, list[tuple[Check, list[str]]]] = {}
    for check, parts in items:
        if parts:
            below.setdefault(parts[0], []).append((check, parts[1:]))
    for head, rest in below.items():
        if head.endswith("[]"):
            array = value.getField(head[:-2]) if head[:-2] else value
            # a missing (null) array or element is judged by its own "required" rule
            conditions.append(F.coalesce(F.exists(array, _element_failing(rest)), F.lit(False)))
        else:
            # a field under a null parent struct is judged by the parent's own "required" rule
            conditions.append(F.when(value.isNull(), F.lit(False))
                              .otherwise(_failing(value.getField(head), rest)))
    result = F.lit(False)
    for condition in conditions:
        result = result | F.coalesce(condition, F.lit(False))
    return result


def _element_failing(items: list[tuple[Check, list[str]]]) -> Callable[[Column], Column]:
    return lambda element: _failing(element, items)


def _split(path: str) -> list[str]:
    # ``members[].partitions[].topic`` -> ["members[]", "partitions[]", "topic"]
    return path.split(".") if path else []


def _check_column(root: Column, check: Check) -> Column:
    """A boolean Column, true when ``check`` fails somewhere under ``root``."""
    return _failing(root, [(check, _split(check.path))])


def any_problem(plan: Column) -> Column:
    """True when the parsed plan struct breaks any rule of the schema (one pass per array)."""
    return _failing(plan, [(c, _split(c.path)) for c in schema_checks()])


def validity_problems(plan: Column) -> Column:
    """array<string> of what is wrong with a parsed plan struct; empty when it is a valid plan.

    The cheap combined test (:func:`any_problem`) runs on every record; the message of each
    broken rule is only worked out for the records that fail it.
    """
    problems = [F.when(_check_column(plan, c), F.lit(c.message)) for c in schema_checks()]
    detailed = F.filter(F.array(*problems), lambda p: p.isNotNull())
    return F.when(any_problem(plan), detailed).otherwise(F.array().cast("array<string>"))
