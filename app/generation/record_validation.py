"""Check one generated record against the uploaded schema with the validator users actually run:
jsonschema (the schema's own draft, FormatChecker, no remote retrieval) or xmlschema.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema.exceptions


def _dotted(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = f"{out}.{part}" if out else str(part)
    return out or "(root)"


class RecordValidator:
    """The validity guard of one record root; each dialect implements the checks it can do."""

    def json_error(self, record: object) -> str | None:
        """The first error of a JSON-shaped record as ``"path: message"``, or None when valid."""
        raise NotImplementedError

    def xml_error(self, xml_text: str) -> str | None:
        """The first error of one XML record element as ``"path: message"``, or None when valid."""
        raise NotImplementedError


class JsonSchemaRecordValidator(RecordValidator):
    """JSON Schema records: `validator` is a jsonschema validator built on the no-retrieval registry."""

    def __init__(self, validator: Any) -> None:
        self._validator = validator

    def json_error(self, record: object) -> str | None:
        error = jsonschema.exceptions.best_match(self._validator.iter_errors(record))
        if error is None:
            return None
        return f"{_dotted(error.absolute_path)}: {error.message}"

    def xml_error(self, xml_text: str) -> str | None:
        raise NotImplementedError("JSON Schema records have no XML form to validate.")


class XsdRecordValidator(RecordValidator):
    """XSD records: an instance of one global element, as XML text or as an xmlschema-decoded dict."""

    def __init__(self, schema: Any, element: Any) -> None:
        self._schema = schema
        self._element = element

    def json_error(self, record: object) -> str | None:
        import xmlschema

        try:
            # keys of elements/attributes from other namespaces carry the schema's own prefixes
            namespaces = dict(self._schema.namespaces)
            for result in self._element.iter_encode(record, validation="lax", namespaces=namespaces):
                if isinstance(result, xmlschema.XMLSchemaValidationError):
                    return _xml_message(result)
        except xmlschema.XMLSchemaException as exc:
            return f"(root): {exc}"
        return None

    def xml_error(self, xml_text: str) -> str | None:
        import xmlschema

        try:
            resource = xmlschema.XMLResource(xml_text, defuse="always", allow="none")
        except xmlschema.XMLSchemaException as exc:
            return f"(root): not well-formed XML: {exc}"
        except SyntaxError as exc:
            return f"(root): not well-formed XML: {exc}"
        if resource.root.tag != self._element.name:
            return f"(root): the element is {resource.root.tag!r}, expected {self._element.name!r}"
        # the element's own validator also covers local (non-global) record elements
        for error in self._element.iter_errors(resource.root):
            return _xml_message(error)
        return None


def _xml_message(error: Any) -> str:
    path = getattr(error, "path", None) or "(root)"
    reason = getattr(error, "reason", None) or str(error)
    return f"{path}: {reason}"
