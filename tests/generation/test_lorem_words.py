"""Free text without a pattern or format (strings._fit_words): whole lorem words while they fit a
drawn target length, the first word cut when it alone is longer, padded with x up to minLength,
the first letter capitalised. The array implementation must give what the rule, word by word,
gives for the same draws (the bytes of every dataset with free text depend on it)."""

from __future__ import annotations

import numpy as np
import pytest

from app.generation.model import LeafContext
from app.generation.values import vocab
from app.generation.values.strings import _WORDS_DRAWN, _fit_words


def _by_the_rule(rng: np.random.Generator, locale: str, n: int, lo: int, hi: int | None) -> list[str]:
    words = vocab.simple_pool(locale, "word")
    top = hi if hi is not None else max(lo, 24)
    top = min(top, max(lo, 60))
    target = rng.integers(lo, top + 1, size=n) if top >= lo else np.full(n, lo)
    picks = words[rng.integers(0, len(words), size=(n, _WORDS_DRAWN))].tolist()
    out = []
    for row, t in zip(picks, target.tolist(), strict=True):
        s = row[0]
        for w in row[1:]:
            if len(s) + 1 + len(w) > t:
                break
            s = f"{s} {w}"
        if len(s) > t:
            s = s[:t].rstrip() or s[:t]
        if len(s) < lo:
            s = s + "x" * (lo - len(s))
        out.append(s[0].upper() + s[1:] if s else s)
    return out


@pytest.mark.parametrize("locale", ["en_US", "de_DE", "fr_FR", "ja_JP", "tr_TR"])
def test_words_follow_the_rule(locale: str) -> None:
    for lo, hi in [
        (0, None),
        (0, 0),
        (0, 1),
        (1, 1),
        (3, 8),
        (1, 35),
        (1, 140),
        (10, 10),
        (50, None),
        (5, 4),
    ]:
        for n in (0, 1, 300):
            got = _fit_words(
                LeafContext(np.random.default_rng(n), locale, np.arange(n), n, _no_groups), n, lo, hi
            )
            assert got == _by_the_rule(np.random.default_rng(n), locale, n, lo, hi), (lo, hi, n)
            top = max(lo, min(hi if hi is not None else max(lo, 24), max(lo, 60)))
            assert all(lo <= len(s) <= top for s in got)


def test_a_capital_longer_than_its_letter(monkeypatch: pytest.MonkeyPatch) -> None:
    # "ß" capitalises to "SS": the first letter is capitalised on the cut value, as the rule does
    pool = np.array(["ßtraße", "weg", "an"], dtype=object)
    monkeypatch.setattr(vocab, "simple_pool", lambda locale, name: pool)
    ctx = LeafContext(np.random.default_rng(5), "de_DE", np.arange(50), 50, _no_groups)
    got = _fit_words(ctx, 50, 2, 9)
    assert got == _by_the_rule(np.random.default_rng(5), "de_DE", 50, 2, 9)
    assert any(s.startswith("SS") for s in got)


def _no_groups(group: str, size: int) -> np.ndarray:
    raise AssertionError("free text draws no object-level group")
