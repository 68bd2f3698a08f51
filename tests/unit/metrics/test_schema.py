"""The Spark schema and validity rules are derived from the plan model, not copied by hand."""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    StringType,
    StructType,
    TimestampType,
)

from metrics.schema import SchemaDerivationError, _to_spark, plan_spark_schema, schema_checks
from protocol.plan import AssignmentPlan, PartitionPlan

pytestmark = pytest.mark.unit


def _expected(annotation: Any) -> DataType:
    """Python annotation -> Spark type, written independently of the JSON-Schema walk."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _expected(inner)
    if origin is typing.Literal:
        return _expected(type(typing.get_args(annotation)[0]))
    if origin is list:
        return ArrayType(_expected(typing.get_args(annotation)[0]))
    if origin is dict:
        return StringType()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return StructType([_field(n, f.annotation) for n, f in annotation.model_fields.items()])
    import datetime

    simple = {int: LongType(), float: DoubleType(), bool: BooleanType(), str: StringType(),
              datetime.datetime: TimestampType()}
    return simple[annotation]


def _field(name: str, annotation: Any) -> Any:
    from pyspark.sql.types import StructField

    return StructField(name, _expected(annotation), True)


def test_spark_schema_follows_every_model_field() -> None:
    assert plan_spark_schema() == _expected(AssignmentPlan)


def test_partition_struct_in_declaration_order() -> None:
    members = plan_spark_schema()["members"].dataType.elementType
    partition = members["partitions"].dataType.elementType
    assert partition.fieldNames() == list(PartitionPlan.model_fields)
    assert partition["weight"].dataType == DoubleType()
    assert partition["replica_racks"].dataType == ArrayType(StringType())


def test_checks_come_from_required_enum_const_and_minimum() -> None:
    checks = {(c.path, c.rule) for c in schema_checks()}
    for name, info in AssignmentPlan.model_fields.items():
        assert ((name, "required") in checks) == info.is_required(), name
    assert ("schema_version", "const") in checks
    assert ("kind", "enum") in checks
    # reason is open: required and non-empty, any value (a newer writer's is carried through)
    assert ("reason", "required") in checks and ("reason", "min_length") in checks
    assert ("reason", "enum") not in checks
    assert ("members[].partitions[].partition", "minimum") in checks
    assert ("members[].partitions[].cross_rack", "required") in checks
    assert ("members[].rack", "required") not in checks  # optional in the model
    reason = next(c for c in schema_checks() if c.path == "reason" and c.rule == "min_length")
    assert reason.detail == 1 and reason.message == "reason: shorter than 1"


def test_unmapped_constructs_are_refused() -> None:
    with pytest.raises(SchemaDerivationError):
        _to_spark({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {})
    with pytest.raises(SchemaDerivationError):
        _to_spark({"$ref": "#/$defs/Nowhere"}, {})
