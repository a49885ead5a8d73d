"""What a client sends to upload or link a schema and to write a constraint set."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)

from app.core.payloads import BASE64, Id, Name, Strict, Update, documented
from app.generation.rule_keys import rule_json_schema


def _content_or_base64(schema: dict[str, Any]) -> None:
    """Exactly one of content and content_base64 (services/schemas.py refuses anything else)."""
    schema["oneOf"] = [
        {"required": [name], "properties": {name: {"type": "string"}}}
        for name in ("content", "content_base64")
    ]


class SchemaUpload(Strict):
    """A schema file: its text in `content` or its bytes in `content_base64`, exactly one of them."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_content_or_base64)
    upload_description: ClassVar[str] = (
        "A JSON Schema or an XSD as UTF-8 text (a byte-order mark is fine), or a .zip of XSD files; "
        "anything else is 422 with the reason (not UTF-8, not a schema)"
    )

    name: Name | None = None
    content: str | None = Field(default=None, description="The schema text (JSON Schema or XSD)")
    content_base64: Annotated[str, documented(pattern=BASE64, minLength=1)] | None = Field(
        default=None, description="Binary uploads (a .zip of XSD files), base64"
    )
    filename: Annotated[str, StringConstraints(max_length=255)] | None = None
    project_id: Id | None = Field(default=None, description="Link the schema to this project")


class SchemaLink(Strict):
    schema_id: Id


# a rule: the field it applies to (`path`, see GET /schemas/{schema_id}/repr) and its settings; the
# service checks the rest against the schema (the path must name a field, a setting fit its type)
# a rule's keys are checked by the rule model against the schema's fields (422 naming the path);
# the document states each key's value from the same table (app/generation/rule_keys.py)
Rule = Annotated[dict[str, Any], WithJsonSchema(rule_json_schema())]

RuleList = Annotated[list[Rule], Field(max_length=1000)]


class ConstraintSetCreate(Strict):
    name: Name
    description: Annotated[str, StringConstraints(max_length=5000)] = ""
    schema_id: Id
    root: Annotated[str, StringConstraints(max_length=500)] | None = None
    rules: RuleList = []


class ConstraintSetUpdate(Update):
    name: Name | None = None
    description: Annotated[str, StringConstraints(max_length=5000)] | None = None
    root: Annotated[str, StringConstraints(max_length=500)] | None = None
    rules: RuleList | None = None
