"""The name table's patterns (values/semantics.py) are matched without compiling most of them
(values/categories.py `NamePattern`, issue 20): a pattern that only spells out words is a set
lookup, any other is compiled on first use. Both must answer exactly as `re.fullmatch` does, or
the inferred categories, and so the bytes of every dataset, would change."""

from __future__ import annotations

import itertools
import re

import pytest

from app.generation.values import semantics
from app.generation.values.categories import NamePattern

TABLES = (semantics.NAME_TABLE, semantics.NUMERIC_TABLE, semantics.TEMPORAL_TABLE)
SOURCES = sorted({p for table in TABLES for r in table for p in (r.name, r.owner, r.sibling) if p})


def _names() -> set[str]:
    """The words of every pattern, each spelled with and without its optional characters, and
    combined with heads and tails the way field names are (`billing_city`, `city_code`)."""
    words: set[str] = set()
    for source in SOURCES:
        for chunk in re.split(r"[^a-z0-9_?]+", source):
            if not chunk:
                continue
            words.add(chunk.replace("?", ""))
            words.add(re.sub(r".\?", "", chunk))
            words.add(chunk.replace("_?", "_"))
    words.discard("")
    names = set(words)
    for word in words:
        names.update({f"x_{word}", f"{word}_x", f"_{word}", f"{word}_", f"a{word}", f"{word}s"})
        names.update({f"on_{word}", f"on{word}"})  # the event handlers' head (`on_?(click|...)`)
    for a, b in itertools.islice(itertools.permutations(sorted(words)[:60], 2), 2000):
        names.add(f"{a}_{b}")
    return names | {"", "_", "Name", "näme", "name\n", "e?mail", "email?", "first_?name"}


NAMES = sorted(_names())


@pytest.mark.parametrize("source", SOURCES)
def test_every_pattern_answers_as_re_fullmatch(source: str) -> None:
    pattern, regex = NamePattern(source), re.compile(source)
    wrong = [n for n in NAMES if pattern.fullmatch(n) != (regex.fullmatch(n) is not None)]
    assert wrong == [], f"{source!r} answers differently from re.fullmatch for {wrong[:10]}"
    assert any(pattern.fullmatch(n) for n in NAMES)  # the vocabulary reaches every pattern


def test_most_patterns_are_set_lookups_and_the_others_compile_when_tried() -> None:
    patterns = [NamePattern(s) for s in SOURCES]
    spelled = [p for p in patterns if p._names is not None]
    assert len(spelled) >= len(SOURCES) // 2
    assert NamePattern("first_?name|fname")._names == {"first_name", "firstname", "fname"}
    assert NamePattern("colou?r")._names == {"color", "colour"}
    for source in ("(.*_)?country", "a??b", "?a", "ab[cd]", "a.b", "a+", "a{2}", "x|(y)"):
        assert NamePattern(source)._names is None, source
    lazy = NamePattern("(.*_)?country")
    assert lazy._regex is None
    assert lazy.fullmatch("billing_country") and not lazy.fullmatch("countryx")
    assert lazy._regex is not None
