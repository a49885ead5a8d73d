"""A record that follows its country (issue 32): where a record's country is an enum (a list of
countries), the country is drawn first, evenly over the list, and the record is drawn in a locale
of that country, so its postal code, city, region, phone number, IBAN and names belong to it.
Countries no supported locale stands for keep the dataset's locale for the rest of the record.
With `params.locales` the record's locale is drawn from that list instead (objects.py).
Design notes: docs/generation.md (records that agree with themselves)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, cast

import numpy as np

from app.generation.engine.agreement import PersonUnit, PlaceUnit, Unit, UnitInput
from app.generation.engine.blocks import BlockContext, Rows, Shared
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj, take
from app.generation.engine.generators import LeafGen, concat_cols
from app.generation.values.category_values import STRING_GENERATORS
from app.generation.values.locales import COUNTRIES, SUPPORTED_LOCALES, locale_country
from app.generation.values.strings import StringGenerator

COUNTRY_ROLES = ("country", "country_code", "country_code3")
_ALIASES = {
    "usa": "US",
    "united states of america": "US",
    "u.s.": "US",
    "uk": "GB",
    "great britain": "GB",
    "england": "GB",
    "the netherlands": "NL",
    "holland": "NL",
    "czech republic": "CZ",
    "korea": "KR",
    "republic of korea": "KR",
    "deutschland": "DE",
    "россия": "RU",
}
PIVOT_DEPTH = 3  # objects below the record searched for its country (address, customer.address)


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """Every spelling of a country the engine knows -> its alpha-2 code (lower-cased keys)."""
    out = dict(_ALIASES)
    for c in COUNTRIES.values():
        out[c.code.lower()] = c.code
        out[c.alpha3.lower()] = c.code
        out[c.name.lower()] = c.code
    return out


@lru_cache(maxsize=128)
def country_locale(code: str) -> str | None:
    """The supported locale that stands for a country: its own language's (de_DE, fr_FR) first,
    else the first listed (en_GB, en_US, de_CH)."""
    found = [loc for loc in SUPPORTED_LOCALES if "_" in loc and loc.split("_")[1] == code]
    own = [loc for loc in found if loc.split("_")[0] == code.lower()]
    chosen = own or found
    return chosen[0] if chosen else None


def country_of(value: object) -> str | None:
    return _names().get(value.strip().lower()) if isinstance(value, str) else None


@dataclass(eq=False)
class CountryPivot:
    path: tuple[int, ...]  # child slots from the record's object to the country field
    gen: LeafGen
    codes: dict[Any, str]  # choice -> the alpha-2 code of a country with a supported locale

    def locales(self, bc: BlockContext, values: Sequence[Any]) -> tuple[list[str], np.ndarray]:
        """The locales the rows are drawn in, and each row's index into them. A country that is
        the dataset locale's own keeps that locale (`en_CA` stays `en_CA` for CA)."""
        own = locale_country(bc.locale).code
        names: list[str] = [bc.locale]
        which = np.zeros(len(values), dtype=np.int64)
        drawn = np.empty(len(values), dtype=object)
        drawn[:] = values
        for choice, code in self.codes.items():
            locale = country_locale(code)
            if code == own or locale is None:
                continue
            if locale not in names:
                names.append(locale)
            which[drawn == choice] = names.index(locale)
        return names, which

    def draw(
        self,
        bc: BlockContext,
        rows: Rows,
        shared: Shared | None,
        one_locale: Callable[[BlockContext, Rows, Shared | None], Obj],
    ) -> Obj:
        country = self.gen.generate(bc, rows, None)
        names, which = self.locales(bc, country.values)
        split_bc = bc if len(names) == 1 else replace(bc, split=(tuple(names), which))
        return _with_country(one_locale(split_bc, rows, shared), self.path, country)


def _locale_context(bc: BlockContext, k: int, locale: str) -> BlockContext:
    if k == 0:  # the dataset's own locale: the streams of a record without a drawn country
        return replace(bc, split=None)
    return BlockContext(
        bc.seed,
        bc.block,
        locale,
        bc.salt * 1000 + 800 + SUPPORTED_LOCALES.index(locale),
        minimal=bc.minimal,
        nil_all=bc.nil_all,
    )


def _groups(bc: BlockContext) -> list[tuple[int, str, np.ndarray]]:
    assert bc.split is not None
    names, which = bc.split
    out = []
    for k, locale in enumerate(names):
        idx = np.flatnonzero(which == k)
        if idx.size:
            out.append((k, locale, idx))
    return out


def by_locale(
    bc: BlockContext, rows: Rows, shared: Shared, generate: Callable[[BlockContext, Rows, Shared], Column]
) -> Column:
    """A locale-shaped field drawn for each locale's rows in that locale."""
    parts: list[tuple[np.ndarray, Column]] = [
        (idx, generate(_locale_context(bc, k, locale), rows.subset(idx), shared.subset(idx)))
        for k, locale, idx in _groups(bc)
    ]
    return _scatter(parts, rows.n)


def fill_by_locale(
    unit: Unit, bc: BlockContext, rows: Rows, shared: Shared, fields: list[Column | None]
) -> None:
    """A person or place unit filled for each locale's rows in that locale (these units write
    their own slots and read no sibling)."""
    parts: list[tuple[np.ndarray, list[Column | None]]] = []
    for k, locale, idx in _groups(bc):
        sub: list[Column | None] = [None] * len(fields)
        unit.fill(UnitInput(_locale_context(bc, k, locale), rows.subset(idx), shared.subset(idx), sub))
        parts.append((idx, sub))
    for i in unit.slots:
        got = [(idx, sub[i]) for idx, sub in parts]
        fields[i] = (
            None
            if any(c is None for _, c in got)
            else _scatter([(idx, c) for idx, c in got if c is not None], rows.n)
        )


def locale_shaped(gen: Any) -> bool:
    """A string field whose category reads the locale (a name, a street, a phone, a sentence)."""
    if not isinstance(gen, LeafGen) or gen.choices is not None:
        return False
    spec = gen.spec
    return (
        spec is not None
        and spec.category in STRING_GENERATORS
        and isinstance(gen.values_gen, StringGenerator)
    )


def unit_shaped(unit: Unit) -> bool:
    return isinstance(unit, (PersonUnit, PlaceUnit))


def _with_country(col: Obj, path: tuple[int, ...], country: Leaf) -> Obj:
    """The drawn country in its field (the locale's rows already hold it; others hold the
    dataset locale's country, or a draw of the field's own)."""
    obj = col
    for slot in path[:-1]:
        nxt = obj.fields[slot]
        if not isinstance(nxt, Obj):
            return col
        obj = nxt
    if isinstance(obj.fields[path[-1]], Leaf):
        obj.fields[path[-1]] = country
    return col


def _scatter(parts: list[tuple[np.ndarray, Column]], n: int) -> Column:
    """One column of n rows from parts that each hold the rows `idx` (together all n, once)."""
    first = parts[0][1]
    if len(parts) == 1:
        return first
    if isinstance(first, Leaf) and all(isinstance(c, Leaf) for _, c in parts):
        values = np.empty(n, dtype=object)
        texts = None
        if any(cast(Leaf, c).text_values is not None for _, c in parts):  # all Leaf: checked above
            texts = np.empty(n, dtype=object)
        for idx, c in parts:
            assert isinstance(c, Leaf)
            values[idx] = _objects(c.values)
            if texts is not None:
                texts[idx] = _objects(c.text())
        return Leaf(values.tolist(), first.kind, None if texts is None else texts.tolist())
    if isinstance(first, Obj) and all(isinstance(c, Obj) for _, c in parts):
        objs: list[tuple[np.ndarray, Obj]] = [(i, c) for i, c in parts if isinstance(c, Obj)]
        fields: list[Column | None] = []
        for k in range(len(first.fields)):
            kids = [(i, o.fields[k]) for i, o in objs]
            if any(c is None for _, c in kids):  # a slot no part draws (the same in every part)
                fields.append(None)
            else:
                fields.append(_scatter([(i, c) for i, c in kids if c is not None], n))
        present = [_masks([(i, o.present[k]) for i, o in objs], n, True) for k in range(len(first.fields))]
        nulls = _masks([(i, o.nulls) for i, o in objs], n, False)
        return Obj(n, fields, present, nulls)
    merged = _by_concat(parts, n)
    assert merged is not None
    return merged


def _objects(values: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _masks(parts: list[tuple[np.ndarray, np.ndarray | None]], n: int, default: bool) -> np.ndarray | None:
    if all(m is None for _, m in parts):
        return None
    out = np.full(n, default, dtype=bool)
    for idx, m in parts:
        if m is not None:
            out[idx] = m
    return out


def _by_concat(parts: Sequence[tuple[np.ndarray, Column]], n: int) -> Column | None:
    """Arrays, choices and mixed parts: concatenated in part order, then put in row order."""
    merged: Column | None = None
    for _, c in parts:
        merged = concat_cols(merged, c)
    if merged is None:
        return None
    order = np.empty(n, dtype=np.int64)
    order[np.concatenate([idx for idx, _ in parts])] = np.arange(n)
    return take(merged, order)


__all__ = [
    "COUNTRY_ROLES",
    "PIVOT_DEPTH",
    "Arr",
    "Choice",
    "CountryPivot",
    "by_locale",
    "country_locale",
    "country_of",
    "fill_by_locale",
    "locale_shaped",
    "unit_shaped",
]
