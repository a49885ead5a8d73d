"""Search-text filters without LIKE: the text is found by position (`instr` on SQLite, `strpos` on
PostgreSQL), so it is literal whatever it holds ('%', '_', backslashes) and has no length limit.
SQLite refuses a LIKE pattern over 50,000 bytes ("pattern too complex": a 50,001-character `q`
answered 500); a position search takes any length and simply matches nothing longer than the
column's text."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Integer, func
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import GenericFunction


class text_position(GenericFunction[int]):
    """text_position(haystack, needle): the 1-based position of needle's first occurrence, 0 if none."""

    type = Integer()
    inherit_cache = True


@compiles(text_position)
def _strpos(element: text_position, compiler: SQLCompiler, **kw: Any) -> str:
    return f"strpos({compiler.process(element.clauses, **kw)})"


@compiles(text_position, "sqlite")
def _instr(element: text_position, compiler: SQLCompiler, **kw: Any) -> str:
    return f"instr({compiler.process(element.clauses, **kw)})"


def contains_folded(column: Any, text: str) -> ColumnElement[bool]:
    """`column` (lower-cased) contains `text` (lower-cased), literally."""
    return text_position(func.lower(column), text.lower()) > 0


def starts_with(column: Any, prefix: str) -> ColumnElement[bool]:
    """`column` starts with `prefix`, literally."""
    return text_position(column, prefix) == 1
