"""The regex-to-string generator: every generated value matches, lengths hold, refusals are clear."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.generation.values.regex import RegexGenerator, unsupported_reason

# real patterns, many from the schema corpus (SchemaStore, CycloneDX, SAML, OpenAPI)
PATTERNS = [
    r"^\+?[0-9]{10,14}$",
    r"^[A-Z]{3}-[0-9]{4}$",
    r"^[0-9]{5}$",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
    r"^(\([0-9]{3}\))?[0-9]{3}-[0-9]{4}$",
    r"^[a-zA-Z0-9_.-]+$",
    r"^[a-z][a-z0-9-]*[a-z0-9]$",
    r"^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$",
    r"^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
    r"^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$",
    r"^x-",
    r"^\$\{\{(.|[\r\n])*\}\}$",
    r"^[_a-zA-Z][a-zA-Z0-9_-]*$",
    r"^(https?|ftp)://[^\s/$.?#].[^\s]*$",
    r"^[1-9][0-9]*(\.[0-9]+)?(ms|s|m|h)$",
    r"(?:[01]?\d|2[0-3]):[0-5]\d",
    r"^[\u4e00-\u9fa5]{2,4}$",
    r"^[^\x00-\x1f]+$",
    r"^\p{L}" if False else r"^[A-Za-z\u00c0-\u00ff]+$",
    r"[^/]+/[^/]+",
    r"^([A-Za-z]{2})(-[A-Za-z]{2})?$",
    r"^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$",
    r"a{0}b",
    r"(ab|cd){2,3}e?",
    r"^\\\\[a-z]+\\[a-z]+$",
    r"^\S+$",
    r"^\W\w\D\d\s$",
    r"^.{3,5}$",
    r"[.]\*\?",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("anchored", [False, True])
def test_generated_strings_match(pattern: str, anchored: bool) -> None:
    gen = RegexGenerator(pattern, anchored=anchored)
    rng = np.random.default_rng(42)
    values = gen.generate(rng, 300)
    rx = re.compile(pattern)
    for v in values:
        assert (rx.fullmatch(v) if anchored else rx.search(v)), (pattern, v)
        # never a character illegal in XML 1.0, never a lone surrogate
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", v)


def test_values_vary() -> None:
    values = RegexGenerator(r"^[A-Z]{3}-[0-9]{4}$", anchored=True).generate(np.random.default_rng(1), 1000)
    assert len(set(values)) > 990


@pytest.mark.parametrize(("pattern", "lo", "hi"), [
    (r"^[a-z]+$", 5, 8),
    (r"^[a-z]*$", 0, 3),
    (r"^\d{2,20}$", 10, 12),
    (r"^(ab)+$", 4, 6),
])
def test_pattern_with_length_bounds(pattern: str, lo: int, hi: int) -> None:
    gen = RegexGenerator(pattern, anchored=True)
    assert gen.feasible(lo, hi) is None
    values = gen.generate(np.random.default_rng(3), 500, lo, hi)
    assert all(lo <= len(v) <= hi and re.fullmatch(pattern, v) for v in values)


def test_unanchored_pattern_is_padded_to_min_length() -> None:
    gen = RegexGenerator(r"^x-", anchored=False)
    values = gen.generate(np.random.default_rng(5), 200, 10, 12)
    assert all(10 <= len(v) <= 12 and v.startswith("x-") for v in values)


def test_infeasible_lengths_are_reported() -> None:
    gen = RegexGenerator(r"^[0-9]{5}$", anchored=True)
    assert "at least 5" in (gen.feasible(0, 3) or "")
    assert "at most 5" in (gen.feasible(8, None) or "")


@pytest.mark.parametrize(("pattern", "word"), [
    (r"(a)\1", "backreferences"),
    (r"(?P<x>a)(?(x)b|c)", "backreferences"),
    (r"[a-", "does not compile"),
])
def test_unsupported_reason(pattern: str, word: str) -> None:
    reason = unsupported_reason(pattern)
    assert reason is not None and word in reason and reason.endswith(".")


@pytest.mark.parametrize("pattern", PATTERNS)
def test_supported_patterns_have_no_reason(pattern: str) -> None:
    assert unsupported_reason(pattern) is None


@pytest.mark.parametrize("pattern", [
    r"(?<=a)b", r"(?<!a)b", r"(?=.*[A-Z])\w+", r"(?!x)y", r"^(?=.*[A-Z])(?=.*[0-9]).{8,}$", r"^[a-z]+(?<!x)$",
])
def test_lookaround_patterns_are_drawn_without_the_assertion_and_checked(pattern: str) -> None:
    assert unsupported_reason(pattern) is None
    gen = RegexGenerator(pattern, anchored=False)
    assert not gen.exact and gen.assertions
    values = gen.generate(np.random.default_rng(4), 200)
    assert sum(map(gen.matches, values)) >= 100  # the rest are re-drawn by the caller's check


def test_nth_enumerates_distinct_matching_values() -> None:
    gen = RegexGenerator(r"^[A-C]{2}-[0-9]$", anchored=True)
    assert gen.count() == 9 * 10
    values = [gen.nth(k) for k in range(gen.count())]
    assert len(set(values)) == 90
    assert all(re.fullmatch(r"[A-C]{2}-[0-9]", v) for v in values)


@pytest.mark.parametrize(("pattern", "lo", "hi"), [
    (r"^[A-Z]{2}[a-z]*[0-9]+$", 20, 25),
    (r"^[a-z]+$", 40, 40),
    (r"^x-[a-z0-9]{1,3}$", 4, 4),
])
def test_lengths_are_steered_exactly(pattern: str, lo: int, hi: int) -> None:
    values = RegexGenerator(pattern, anchored=True).generate(np.random.default_rng(8), 2000, lo, hi)
    assert all(lo <= len(v) <= hi and re.fullmatch(pattern, v) for v in values)
    assert len({len(v) for v in values}) == hi - lo + 1  # every allowed length occurs
