"""A dataset's generation plan in a worker process (local pool or Celery) and in a preview, and
the warm-up that makes a fresh worker process's first plan as quick as its later ones.

Plans are compiled through `app.core.generation.cached_plan`: once per process for a schema
content, rules, params but the seed, and record count. A worker also keeps the plans of its
latest datasets, keyed by all the inputs of each (schema content and file name, rules, params with
the seed, record count): the shards of one dataset reuse the block a previous shard drew last.
Never by dataset id alone: an id once pointed at another dataset (SQLite reused a deleted one's
id), whose plan then wrote the new dataset's bytes."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from app.core.datasets.models import Dataset
from app.core.generation import NEGATIVE_FORMATS, cached_plan, compile_plan, load_schema, write
from app.core.library.models import SchemaDoc
from app.core.lru import BoundedLRU
from app.core.schema_cache import load_cached
from app.core.settings import Settings
from app.core.storage import store_for

if TYPE_CHECKING:  # the engine is imported when a plan is first compiled, not with this module
    from app.generation.plan import Plan

PLAN_CACHE_SIZE = 4


def rate_of(params: Mapping[str, Any]) -> float:
    """params.invalid_rate as a number; 0 when absent or not a number (issue 30)."""
    rate = params.get("invalid_rate") or 0
    return float(rate) if isinstance(rate, int | float) and not isinstance(rate, bool) else 0.0


def invalid_records(dataset: Any) -> int:
    """How many of a dataset's records are invalid: round(N x R), halves up (the engine's
    negative.selection.invalid_count, without importing the engine into the API process)."""
    n, rate = int(dataset.record_count), rate_of(dataset.params or {})
    return min(n, max(0, math.floor(n * rate + 0.5))) if rate else 0


# schema storage key, file name, rules and params as canonical JSON, record count
PlanKey = tuple[str, str | None, bytes, bytes, int]
_plans: BoundedLRU[PlanKey, Plan] = BoundedLRU(PLAN_CACHE_SIZE)

# What warm_up compiles and writes: a record with the kinds of field most schemas have (formats,
# a pattern, enums, decimals, a nested object, an array of objects, an optional field), as JSON
# Schema and as XSD, so the lazily imported parts of the engine and of the guard's validators
# (jsonschema's format checkers, RE2, xmlschema) and the per-process tables behind them are
# ready before the first shard, not in its time.
_WARM_JSON = b"""{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["id", "email", "created_at", "birth_date", "status", "code", "total", "address", "items"],
  "properties": {
    "id": {"type": "string", "format": "uuid"},
    "email": {"type": "string", "format": "email"},
    "created_at": {"type": "string", "format": "date-time"},
    "birth_date": {"type": "string", "format": "date"},
    "status": {"enum": ["new", "paid", "shipped"]},
    "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
    "total": {"type": "number", "minimum": 0, "maximum": 10000, "multipleOf": 0.01},
    "note": {"type": "string", "maxLength": 80},
    "address": {
      "type": "object",
      "required": ["street", "city", "postal_code", "country"],
      "properties": {
        "street": {"type": "string"}, "city": {"type": "string"},
        "postal_code": {"type": "string"}, "country": {"type": "string", "minLength": 2, "maxLength": 2}
      }
    },
    "items": {
      "type": "array", "minItems": 1, "maxItems": 3,
      "items": {
        "type": "object", "required": ["sku", "quantity", "price"],
        "properties": {
          "sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1, "maximum": 9},
          "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01}
        }
      }
    }
  }
}"""
_WARM_XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="id" type="xs:string"/>
        <xs:element name="email" type="xs:string"/>
        <xs:element name="created_at" type="xs:dateTime"/>
        <xs:element name="status">
          <xs:simpleType>
            <xs:restriction base="xs:string">
              <xs:enumeration value="new"/><xs:enumeration value="paid"/>
            </xs:restriction>
          </xs:simpleType>
        </xs:element>
        <xs:element name="code">
          <xs:simpleType>
            <xs:restriction base="xs:string"><xs:pattern value="[A-Z]{3}-[0-9]{4}"/></xs:restriction>
          </xs:simpleType>
        </xs:element>
        <xs:element name="total">
          <xs:simpleType>
            <xs:restriction base="xs:decimal">
              <xs:minInclusive value="0"/><xs:fractionDigits value="2"/>
            </xs:restriction>
          </xs:simpleType>
        </xs:element>
        <xs:element name="line" maxOccurs="3">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="sku" type="xs:string"/>
              <xs:element name="quantity" type="xs:positiveInteger"/>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
        <xs:element name="note" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="number" type="xs:int" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"""


class DatasetInputs(Protocol):
    """What compiling a plan reads of a dataset (a Dataset row, or a preview's inputs)."""

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def rules(self) -> list[dict[str, Any]]: ...

    @property
    def record_count(self) -> int: ...


def compile_dataset(
    settings: Settings,
    dataset: DatasetInputs,
    schema: SchemaDoc,
    *,
    work: bool = False,
    formats: Sequence[str] = NEGATIVE_FORMATS,
    coverage_seconds: float | None = None,
) -> Plan:
    """The generation plan of a dataset: its schema, its rule snapshot, its params and seed;
    compiled once per process for any seed (app.core.generation.cached_plan). `work`: for a
    worker, whose schema read waits out a store's transient faults (app.core.storage.store_for).
    `coverage_seconds`: the deadline of params.coverage's set (a preview's render)."""
    return cached_plan(
        (schema.storage_key, schema.filename),
        lambda: load_cached(store_for(settings, work=work), schema.storage_key, schema.filename),
        dataset.rules or [],
        dataset.params,
        record_count=dataset.record_count,
        formats=formats,
        coverage_seconds=coverage_seconds,
    )


def plan_key(dataset: DatasetInputs, schema: SchemaDoc) -> PlanKey:
    """Everything a dataset's plan is made of: the schema's content (its storage key is the
    sha256 of its bytes) and file name, the rules and the params (seed included) as canonical
    JSON, and the record count."""
    return (
        schema.storage_key,
        schema.filename,
        orjson.dumps(dataset.rules or [], option=orjson.OPT_SORT_KEYS),
        orjson.dumps(dataset.params, option=orjson.OPT_SORT_KEYS),
        dataset.record_count,
    )


def plan_for(settings: Settings, dataset: Dataset, schema: SchemaDoc) -> Plan:
    """compile_dataset, kept for the shards that follow (by plan_key, not by dataset id)."""
    key = plan_key(dataset, schema)
    plan = _plans.get(key)
    if plan is None:
        plan = compile_dataset(settings, dataset, schema, work=True, formats=dataset.types)
        _plans.put(key, plan)
    return plan


_warmed = False


def warm_up() -> None:
    """What a fresh worker process would otherwise do in its first shard's time: import the
    engine and the schema loaders, sample the default locale's vocabularies, and compile and
    write (guarded) a few records of a typical schema, JSON Schema and XSD. Nothing of it is kept
    in the plan cache. Once per process: a child of the fork server (app/core/processes.py) inherits it done."""
    global _warmed
    if _warmed:
        return
    from app.generation.values.vocab import address_pool, person_pool

    person_pool("en_US")
    address_pool("en_US")
    for content, name, fmt in ((_WARM_JSON, "warm.schema.json", "json"), (_WARM_XSD, "warm.xsd", "xml")):
        plan = compile_plan(load_schema(content, name), [], {"seed": 1}, record_count=20)
        write(plan, fmt, io.BytesIO())
    _warmed = True
