"""Records that agree with themselves: sibling fields of one object drawn as units. A person's
gender and title follow its first name; a country, currency, state and phone number follow the
record's locale and address; time pairs are ordered and an age matches its birth date
(`timeline.py`). A derived value that would break its own field's facets is not used: that row
of the field is drawn independently, as without the unit. Design notes: docs/generation.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.generation.engine.columns import Column, Leaf
from app.generation.engine.generators import BlockContext, Gen, LeafGen, Rows, Shared, null_mask
from app.generation.model import Kind
from app.generation.values import compose, vocab
from app.generation.values.categories import infer_category, normalise_name
from app.generation.values.locales import locale_country
from app.generation.values.regex import codes_to_strings
from app.generation.values.strings import StringGenerator

_NULL_SALT = 0x9E3779B97F4A7C15


@dataclass
class UnitInput:
    """What a unit reads and fills: the object's rows, its group indexes and its child columns."""

    bc: BlockContext
    rows: Rows
    shared: Shared
    fields: list[Column | None]


class Unit:
    slots: tuple[int, ...] = ()  # the child slots the unit fills (the others it may read)

    def fill(self, u: UnitInput) -> None:
        raise NotImplementedError


def settle(
    gen: LeafGen, u: UnitInput, values: Sequence[Any], ok: np.ndarray, text: list[Any] | None = None
) -> Leaf:
    """A derived column for `gen`: rows whose derived value is not `ok` are drawn by the field's
    own generator (as if there were no unit); the field's null rate applies as usual."""
    n = u.rows.n
    out = list(values)
    if text is None and gen.choices is not None and gen.choice_text is not None:
        index = {c: i for i, c in enumerate(gen.choices)}
        text = [gen.choice_text[index[v]] if good else None for v, good in zip(out, ok.tolist(), strict=True)]
    bad = np.flatnonzero(~ok)
    if bad.size:
        own = gen.generate(u.bc, u.rows.subset(bad), u.shared.subset(bad))
        own_text = own.text() if text is not None else None
        for j, i in enumerate(bad.tolist()):
            out[i] = own.values[j]
            if text is not None and own_text is not None:
                text[i] = own_text[j]
    nulls = null_mask(u.bc.rng(gen.key ^ _NULL_SALT), n, gen.null_rate, u.bc)
    if nulls is not None:
        for i in np.flatnonzero(nulls & ok).tolist():
            out[i] = None
            if text is not None:
                text[i] = None
    return Leaf(out, gen.kind, text)


def role_of(gen: Gen | None) -> str | None:
    """The semantic role of a plain leaf (its category, or what its name suggests for an enum)."""
    if not isinstance(gen, LeafGen) or gen.negations or gen.always_null or gen.boolean:
        return None
    spec = gen.spec
    if spec is None or spec.unique or spec.row_number:
        return None
    if gen.choices is None and not isinstance(gen.values_gen, StringGenerator):
        return None
    if gen.choices is not None and not all(isinstance(c, str) for c in gen.choices):
        return None
    return spec.category or infer_category(gen.node.name, Kind.STRING, gen.node.format)


def _fits(gen: LeafGen, candidates: Sequence[str]) -> list[bool]:
    """Which candidate values the field's own facets accept."""
    if gen.choices is not None:
        return [c in gen.choices for c in candidates]
    assert isinstance(gen.values_gen, StringGenerator)
    fits: list[bool] = gen.values_gen.ok(list(candidates)).tolist()
    return fits


# -- a person: gender and title follow the first name ----------------------------------------

_FEMALE = {"female", "f", "woman", "w", "frau", "femme", "weiblich", "girl", "mujer", "donna", "vrouw"}
_MALE = {"male", "m", "man", "herr", "homme", "männlich", "boy", "hombre", "uomo", "mann"}
_TITLE_FEMALE = {
    "ms",
    "mrs",
    "miss",
    "frau",
    "fr",
    "mme",
    "madame",
    "mlle",
    "sra",
    "signora",
    "mevr",
    "mevrouw",
}
_TITLE_MALE = {"mr", "herr", "hr", "m", "monsieur", "sr", "signor", "sig", "dhr", "de heer"}
_TITLE_NEUTRAL = {"dr", "prof", "mx"}
_TITLE_NAMES = {"title", "salutation", "honorific", "name_prefix", "prefix", "form_of_address", "anrede"}
_SALUTATIONS = {  # free-text titles by language: (female, male)
    "de": ("Frau", "Herr"),
    "fr": ("Mme", "M."),
    "es": ("Sra.", "Sr."),
    "it": ("Sig.ra", "Sig."),
    "nl": ("Mevr.", "Dhr."),
    "pt": ("Sra.", "Sr."),
}
_NEUTRAL_SHARE = 0.08  # titles such as Dr where the field allows one


def _word(value: str) -> str:
    return value.strip().rstrip(".").lower()


@dataclass(eq=False)
class PersonUnit(Unit):
    gender: tuple[int, LeafGen] | None = None
    titles: list[tuple[int, LeafGen]] = field(default_factory=list)
    slots: tuple[int, ...] = ()

    def fill(self, u: UnitInput) -> None:
        pool = vocab.person_pool(u.bc.locale)
        female = pool["gender"][u.shared("person.first", len(pool["first"]))[: u.rows.n]] == "female"
        if self.gender is not None:
            i, gen = self.gender
            u.fields[i] = self._gender(gen, u, female)
        for i, gen in self.titles:
            u.fields[i] = self._title(gen, u, female)

    @staticmethod
    def _gender(gen: LeafGen, u: UnitInput, female: np.ndarray) -> Leaf:
        if gen.choices is not None:
            f = next((c for c in gen.choices if _word(c) in _FEMALE), None)
            m = next((c for c in gen.choices if _word(c) in _MALE), None)
        else:
            f, m = (
                w if ok else None
                for w, ok in zip(("female", "male"), _fits(gen, ["female", "male"]), strict=True)
            )
        values = np.empty(len(female), dtype=object)
        values[female], values[~female] = f, m
        ok = np.where(female, f is not None, m is not None)
        return settle(gen, u, values.tolist(), ok)

    @staticmethod
    def _title(gen: LeafGen, u: UnitInput, female: np.ndarray) -> Leaf:
        n = u.rows.n
        if gen.choices is not None:
            fem = [c for c in gen.choices if _word(c) in _TITLE_FEMALE]
            mal = [c for c in gen.choices if _word(c) in _TITLE_MALE]
            neu = [c for c in gen.choices if _word(c) in _TITLE_NEUTRAL]
        else:
            pair = _SALUTATIONS.get(u.bc.locale.split("_")[0], ("Ms", "Mr"))
            fits = _fits(gen, [pair[0], pair[1], "Dr"])
            fem, mal, neu = ([w] if ok else [] for w, ok in zip((pair[0], pair[1], "Dr"), fits, strict=True))
        rng = u.bc.rng(gen.key ^ 0x7177)
        pick = rng.random(n)
        neutral = rng.random(n) < (_NEUTRAL_SHARE if neu else 0.0)
        values = np.empty(n, dtype=object)
        ok = np.ones(n, dtype=bool)
        for mask, options in ((female & ~neutral, fem), (~female & ~neutral, mal), (neutral, neu)):
            if not options:
                ok[mask] = False
                continue
            arr = np.array(options, dtype=object)
            values[mask] = arr[(pick[mask] * len(arr)).astype(np.int64)]
        return settle(gen, u, values.tolist(), ok)


def person_unit(leaves: Mapping[int, LeafGen], roles: Mapping[int, str | None]) -> PersonUnit | None:
    gender: tuple[int, LeafGen] | None = None
    titles: list[tuple[int, LeafGen]] = []
    for i, gen in leaves.items():
        name = normalise_name(gen.node.name)
        if roles[i] == "gender" or name in ("gender", "sex"):
            gender = gender or (i, gen)
        elif (name in _TITLE_NAMES or roles[i] == "name_prefix") and (
            (gen.choices is not None and any(_word(c) in _TITLE_FEMALE | _TITLE_MALE for c in gen.choices))
            or (gen.choices is None and (roles[i] == "name_prefix" or name not in ("title", "prefix")))
        ):
            titles.append((i, gen))
    if gender is None and not titles:
        return None
    slots = tuple(i for i, _ in ([gender] if gender is not None else []) + titles)
    return PersonUnit(gender, titles, slots)


# -- a place: country, state, currency and phone follow the locale and the address -----------

_COUNTRY_FORMS = {"country": 0, "country_code": 1, "country_code3": 2}
_PLACE_ROLES = {"street_address", "street_name", "building_number", "city", "postcode", "address"}


@dataclass(eq=False)
class PlaceUnit(Unit):
    # (slot, generator, the form the field's name asks for first: 0 name, 1 alpha-2, 2 alpha-3)
    country: list[tuple[int, LeafGen, int]] = field(default_factory=list)
    state: list[tuple[int, LeafGen, int]] = field(default_factory=list)  # 0 name, 1 abbreviation
    currency: list[tuple[int, LeafGen]] = field(default_factory=list)
    phone: list[tuple[int, LeafGen]] = field(default_factory=list)
    slots: tuple[int, ...] = ()
    _phones: dict[tuple[int, str], np.ndarray] = field(default_factory=dict, repr=False)

    def fill(self, u: UnitInput) -> None:
        n = u.rows.n
        land = locale_country(u.bc.locale)
        for i, gen, form in self.country:
            forms = [land.name, land.code, land.alpha3]
            u.fields[i] = _constant(gen, u, [forms[form], *(f for k, f in enumerate(forms) if k != form)])
        for i, gen in self.currency:
            u.fields[i] = _constant(gen, u, [land.currency])
        if self.state:
            pool = vocab.address_pool(u.bc.locale)
            idx = u.shared("address", len(pool["city"]))[:n]
            names, abbrs = pool["state"][idx], pool["state_abbr"][idx]
            for i, gen, form in self.state:
                columns = [lambda rows: names[rows], lambda rows: abbrs[rows]]
                u.fields[i] = _first_fit(gen, u, columns if form == 0 else columns[::-1])
        for i, gen in self.phone:
            u.fields[i] = _phone(gen, u, self._phones)


def _constant(gen: LeafGen, u: UnitInput, candidates: list[str]) -> Leaf:
    n = u.rows.n
    fits = _fits(gen, candidates)
    chosen = next((c for c, ok in zip(candidates, fits, strict=True) if ok), None)
    values = [chosen] * n
    text = None
    if chosen is not None and gen.choices is not None and gen.choice_text is not None:
        text = [gen.choice_text[gen.choices.index(chosen)]] * n
    return settle(gen, u, values, np.full(n, chosen is not None), text)


def _first_fit(gen: LeafGen, u: UnitInput, columns: Sequence[Callable[[np.ndarray], np.ndarray]]) -> Leaf:
    """Each row the first candidate the field accepts; a candidate column is built (for the rows
    still open) only when the ones before it left rows open."""
    n = u.rows.n
    values = np.empty(n, dtype=object)
    done = np.zeros(n, dtype=bool)
    for column in columns:
        rows = np.flatnonzero(~done)
        if not rows.size:
            break
        cand = column(rows)
        fits = np.array(_fits(gen, cand.tolist()), dtype=bool)
        values[rows[fits]] = cand[fits]
        done[rows[fits]] = True
    return settle(gen, u, values.tolist(), done)


_MIN_PHONE_FORMS = 100  # fewer accepted locale numbers than this: E.164 numbers instead


def _accepted_phones(gen: LeafGen, locale: str, memo: dict[tuple[int, str], np.ndarray]) -> np.ndarray:
    """Indexes of the locale's phone numbers this field's facets accept (the whole pool checked
    once per field and locale: the same answer whichever block asks first)."""
    got = memo.get((gen.key, locale))
    if got is None:
        pool = vocab.phone_pool(locale)
        got = np.flatnonzero(np.array(_fits(gen, pool.tolist()), dtype=bool))
        memo[(gen.key, locale)] = got
    return got


def _phone(gen: LeafGen, u: UnitInput, memo: dict[tuple[int, str], np.ndarray]) -> Leaf:
    """The locale's phone formats the field accepts, with fresh subscriber digits (a number
    the facets then refuse is drawn by the field's own generator), else the country's number
    in E.164 (`+4930123456789`) or its national digits: never another country's prefix."""
    n = u.rows.n
    rng = u.bc.rng(gen.key ^ 0x9403)
    accepted = _accepted_phones(gen, u.bc.locale, memo)
    if len(accepted) >= _MIN_PHONE_FORMS:
        idx = accepted[rng.integers(0, len(accepted), size=n)]
        values = compose.fill_digits(vocab.phone_templates(u.bc.locale), rng, idx)
        return settle(gen, u, values, np.array(_fits(gen, values), dtype=bool))
    land = locale_country(u.bc.locale)
    codes = rng.integers(ord("0"), ord("9") + 1, size=(n, land.national_digits)).astype(np.uint32)
    codes[:, 0] = rng.integers(ord("1"), ord("9") + 1, size=n)
    national = np.empty(n, dtype=object)
    national[:] = codes_to_strings(codes)
    prefix = "+" + land.calling_code
    return _first_fit(gen, u, [lambda rows: prefix + national[rows], lambda rows: national[rows]])


def place_unit(leaves: Mapping[int, LeafGen], roles: Mapping[int, str | None]) -> PlaceUnit | None:
    unit = PlaceUnit()
    placed = False
    for i, gen in leaves.items():
        role = roles[i]
        name = normalise_name(gen.node.name)
        if role in _COUNTRY_FORMS:
            unit.country.append((i, gen, _COUNTRY_FORMS[role]))
        elif role in ("state", "state_abbr"):
            unit.state.append((i, gen, 1 if role == "state_abbr" else 0))
        elif role in ("phone", "phone_number"):
            unit.phone.append((i, gen))
        elif role == "currency_code" or name in ("currency", "currency_code", "ccy"):
            unit.currency.append((i, gen))
        placed = placed or role in _PLACE_ROLES
    if not (unit.country or placed):
        unit.currency = []  # a currency agrees with a country only where both appear
    unit.slots = tuple(
        [i for i, _, _ in unit.country]
        + [i for i, _, _ in unit.state]
        + [i for i, _ in unit.currency]
        + [i for i, _ in unit.phone]
    )
    return unit if unit.slots else None
