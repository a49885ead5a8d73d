"""The one kind of DOCTYPE an uploaded XML document may carry: an internal subset that declares
general entities with literal text (the W3C XML-Signature and XML-Encryption schemas, and so every
schema importing them). `DtdPolicy` checks it during the expat prescan; `without_dtd` then rewrites
the document with its entities expanded and no DOCTYPE, so xmlschema still refuses every DTD.

Accepted: general entities whose text holds no markup and no reference (`<!ENTITY dsig '...'>`),
within MAX_ENTITIES and MAX_ENTITY_CHARS; parameter entities with literal text that nothing refers
to; ATTLIST and ELEMENT declarations, which are ignored (defaulted attributes are not applied); an
external DTD identifier on the DOCTYPE, which is never read. Refused: an external or unparsed
entity, a notation, a parameter-entity reference, an entity whose text refers to another entity,
a reference to an undeclared entity, and documents whose references could add more than
MAX_EXPANSION_CHARS characters. Design notes: docs/generation.md."""

from __future__ import annotations

import xml.parsers.expat
from typing import Any

from app.generation.errors import SchemaError

MAX_ENTITIES = 256
MAX_ENTITY_CHARS = 64 * 1024  # all declared entity texts together
# an upper bound of what expansion may add: (references in the document) x (longest entity text)
MAX_EXPANSION_CHARS = 1024 * 1024
_RULE = "only general entities with literal text are accepted in a DTD"


class DtdPolicy:
    """Expat handlers that refuse every DOCTYPE content except literal internal entities."""

    def __init__(self, text: str, what: str) -> None:
        self.text = text
        self.what = what
        self.seen = False  # the document has a DOCTYPE
        self.entities = 0
        self.entity_chars = 0
        self.longest = 0

    def refuse(self, reason: str) -> SchemaError:
        # entity names and identifiers stay out of the message: they may be an attacker's payload
        return SchemaError(f"{self.what} declares a DTD with {reason}; {_RULE}.")

    def install(self, parser: Any) -> None:
        parser.specified_attributes = True  # ATTLIST defaults are never applied
        parser.EntityDeclHandler = self._entity
        parser.UnparsedEntityDeclHandler = lambda *_: self._raise("an unparsed external entity")
        parser.NotationDeclHandler = lambda *_: self._raise("a notation")
        parser.SkippedEntityHandler = lambda *_: self._raise("a reference to an entity it does not declare")
        parser.ExternalEntityRefHandler = lambda *_: self._raise("an external entity reference")
        parser.AttlistDeclHandler = lambda *_: None
        parser.ElementDeclHandler = lambda *_: None

        def inside(data: str) -> None:
            # inside the DOCTYPE, text no handler takes comes here: a parameter-entity reference
            # (`%name;`) shows here and nowhere else
            if data.lstrip().startswith("%"):
                raise self.refuse("a parameter-entity reference")

        def start(*_: Any) -> None:
            # an external subset (the W3C files name XMLSchema.dtd) is never read: expat has no
            # external-entity loader here and parameter-entity parsing stays off
            self.seen = True
            parser.DefaultHandler = inside

        def end() -> None:
            # expat expands content entities again only through this setter (the plain one,
            # even set to None, keeps them unexpanded and reported as skipped)
            parser.DefaultHandlerExpand = None
            if self.text.count("&") * self.longest > MAX_EXPANSION_CHARS:
                raise self.refuse(
                    "entities whose references could add more than "
                    f"{MAX_EXPANSION_CHARS:,} characters to the document"
                )

        parser.StartDoctypeDeclHandler = start
        parser.EndDoctypeDeclHandler = end

    def _raise(self, reason: str) -> None:
        raise self.refuse(reason)

    def _entity(
        self,
        _name: str,
        is_parameter: int,
        value: str | None,
        _base: str | None,
        system_id: str | None,
        public_id: str | None,
        notation: str | None,
    ) -> None:
        if value is None or system_id is not None or public_id is not None or notation is not None:
            raise self.refuse("an external entity")
        if "&" in value or "%" in value:
            raise self.refuse("an entity whose text refers to another entity")
        if "<" in value:
            raise self.refuse("an entity whose text holds markup")
        self.entities += 1
        self.entity_chars += len(value)
        if self.entities > MAX_ENTITIES or self.entity_chars > MAX_ENTITY_CHARS:
            raise self.refuse(
                f"more than {MAX_ENTITIES} entities or {MAX_ENTITY_CHARS:,} characters of entity text"
            )
        if not is_parameter:
            self.longest = max(self.longest, len(value))


_ATTRIBUTE_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
)
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})


def without_dtd(text: str) -> str:
    """`text` (already accepted by a prescan with `DtdPolicy`) as the same elements, attributes and
    character data, entities expanded, without XML declaration, DOCTYPE, comments or processing
    instructions. Prefixes and namespace declarations are kept as written."""
    out: list[str] = []
    parser = xml.parsers.expat.ParserCreate(encoding="UTF-8")  # no namespace processing
    parser.ordered_attributes = True
    parser.specified_attributes = True
    parser.buffer_text = True

    def start(name: str, attrs: list[str]) -> None:
        pairs = "".join(
            f' {attrs[i]}="{attrs[i + 1].translate(_ATTRIBUTE_ESCAPES)}"' for i in range(0, len(attrs), 2)
        )
        out.append(f"<{name}{pairs}>")

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda name: out.append(f"</{name}>")
    parser.CharacterDataHandler = lambda data: out.append(data.translate(_TEXT_ESCAPES))
    try:
        parser.Parse(text.encode("utf-8"), True)
    except xml.parsers.expat.ExpatError as exc:  # the prescan accepted it: not expected
        raise SchemaError(f"The XML document cannot be read (line {exc.lineno}).") from None
    return "".join(out)
