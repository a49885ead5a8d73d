"""A breakable constraint and the label of a record that breaks it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from app.generation.negative.instance import Step


@dataclass(eq=False)
class Constraint:
    """One (location, keyword) pair a record can break.

    `template`: where in the record (see instance.py); `keyword`: the validator's name for it;
    `schema_pointer`: where it lives in the schema; `schema`: the (sub)schema holding it (JSON
    Schema) and `resolver` the reference resolver valid there; `rule`: a constraint-set rule's index."""

    template: tuple[Step, ...]
    keyword: str
    schema_pointer: str
    schema: Any = None
    resolver: Any = None
    rule: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.schema_pointer, self.keyword)


@dataclass(frozen=True)
class Label:
    record: int
    pointer: str
    keyword: str
    schema_pointer: str
    rule: int | None
    detail: str

    def ndjson(self) -> bytes:
        return (
            orjson.dumps(
                {
                    "record": self.record,
                    "pointer": self.pointer,
                    "keyword": self.keyword,
                    "schema_pointer": self.schema_pointer,
                    "rule": self.rule,
                    "detail": self.detail,
                }
            )
            + b"\n"
        )
