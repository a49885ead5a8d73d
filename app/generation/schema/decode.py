"""Schema bytes as text: strict UTF-8, shared by the loader and the XSD zip reader."""

from __future__ import annotations

from app.generation.errors import SchemaError

_BOM = b"\xef\xbb\xbf"


def decode_utf8(content: bytes, what: str = "The schema") -> str:
    """Strict UTF-8 decoding (a leading BOM is dropped); SchemaError names the first bad byte offset."""
    if content.startswith(_BOM):
        content = content[len(_BOM) :]
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{what} is not valid UTF-8 (invalid byte at offset {exc.start}).") from None
