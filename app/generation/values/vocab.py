"""Locale vocabularies: Faker's provider data turned into NumPy arrays once per locale.
Design notes: docs/generation.md."""

from __future__ import annotations

import threading
import unicodedata
import zlib
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from faker import Faker
from faker.config import AVAILABLE_LOCALES

from app.generation.errors import ParamsError

POOL_SIZE = 2000
_POOL_SEED = 20_240_601
_lock = threading.Lock()


def normalise_locale(locale: str | None) -> str:
    """`en-US` / `en_us` -> `en_US`; unknown locales -> ParamsError."""
    if not locale:
        return "en_US"
    raw = locale.replace("-", "_")
    parts = raw.split("_")
    cand = parts[0].lower() + ("_" + parts[1].upper() if len(parts) > 1 else "")
    if cand in AVAILABLE_LOCALES:
        return cand
    if len(parts) == 1:
        for loc in AVAILABLE_LOCALES:
            if loc.split("_")[0] == cand:
                return loc
    raise ParamsError(
        f"locale {locale!r} is not supported; use a Faker locale such as en_US, de_DE, fr_FR or ja_JP."
    )


@lru_cache(maxsize=16)
def _faker_instance(locale: str) -> Faker:
    return Faker(locale)


def _faker(locale: str, pool: str) -> Faker:
    """The locale's Faker, re-seeded for this pool: pools never depend on build order."""
    fake = _faker_instance(locale)
    fake.seed_instance(_POOL_SEED + zlib.crc32(pool.encode()))
    return fake


def ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: `Müller-Lüdenscheidt` -> `mullerludenscheidt`."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isascii() and c.isalnum()).lower()


def _has(fake: Faker, name: str) -> bool:
    try:
        getattr(fake, name)
    except AttributeError:
        return False
    return True


def _sample(fake: Faker, fn: Callable[[], object], size: int = POOL_SIZE) -> np.ndarray:
    # deduplicated but order-preserving, so the pool is stable for a given Faker version
    seen: dict[object, None] = {}
    for _ in range(size):
        seen.setdefault(fn(), None)
    arr = np.empty(len(seen), dtype=object)
    arr[:] = list(seen)
    return arr


def _person(fake: Faker) -> dict[str, np.ndarray]:
    first: list[str] = []
    last: list[str] = []
    first_ascii: list[str] = []
    last_ascii: list[str] = []
    romanised = _has(fake, "first_name_pair")
    for _ in range(POOL_SIZE):
        if romanised:
            f, _kana, f_rom = fake.first_name_pair()
            ln, _kana2, l_rom = fake.last_name_pair()
        else:
            f, ln = fake.first_name(), fake.last_name()
            f_rom, l_rom = f, ln
        first.append(f)
        last.append(ln)
        first_ascii.append(ascii_fold(f_rom) or "user")
        last_ascii.append(ascii_fold(l_rom) or "name")
    initials = [f[:1] for f in first_ascii]  # for e-mail local parts such as "jsmith"
    return {
        k: np.array(v, dtype=object)
        for k, v in (
            ("first", first),
            ("last", last),
            ("first_ascii", first_ascii),
            ("last_ascii", last_ascii),
            ("first_initial", initials),
        )
    }


def _address(fake: Faker) -> dict[str, np.ndarray]:
    cols: dict[str, list[str]] = {
        k: []
        for k in (
            "street_address",
            "street_name",
            "building_number",
            "city",
            "state",
            "state_abbr",
            "postcode",
            "country",
            "country_code",
        )
    }
    has_state = _has(fake, "state")
    has_abbr = _has(fake, "state_abbr") and _has(fake, "postcode_in_state")
    country = fake.current_country() if _has(fake, "current_country") else "United States"
    code = fake.current_country_code() if _has(fake, "current_country_code") else "US"
    for _ in range(POOL_SIZE):
        cols["street_address"].append(fake.street_address())
        cols["street_name"].append(fake.street_name())
        cols["building_number"].append(fake.building_number())
        cols["city"].append(fake.city())
        if has_abbr:
            abbr = fake.state_abbr(include_territories=False)
            cols["state_abbr"].append(abbr)
            cols["state"].append(fake.state() if not has_state else _state_name(fake, abbr))
            cols["postcode"].append(fake.postcode_in_state(abbr))
        else:
            region = (
                fake.state()
                if has_state
                else (fake.administrative_unit() if _has(fake, "administrative_unit") else fake.city())
            )
            cols["state"].append(region)
            cols["state_abbr"].append(ascii_fold(region)[:2].upper() or "XX")
            cols["postcode"].append(fake.postcode())
        cols["country"].append(country)
        cols["country_code"].append(code)
    return {k: np.array(v, dtype=object) for k, v in cols.items()}


def _state_name(fake: Faker, abbr: str) -> str:
    provider = next((p for p in fake.get_providers() if hasattr(p, "states_abbr")), None)
    states = getattr(provider, "states", None)
    abbrs = getattr(provider, "states_abbr", None)
    if isinstance(states, (list, tuple)) and isinstance(abbrs, (list, tuple)):
        # en_US lists DC among the abbreviations but not the names: pair them by initial order
        names: dict[str, str] = {a: s for a, s in zip([a for a in abbrs if a != "DC"], states, strict=False)}
        names["DC"] = "District of Columbia"
        return names.get(abbr, abbr)
    return abbr


# simple pools: one Faker method each (the method is looked up on the locale's Faker instance)
_SIMPLE: dict[str, Callable[[Faker], object]] = {
    "company": lambda f: f.company(),
    "job_title": lambda f: f.job(),
    "phone_number": lambda f: f.phone_number(),
    "catch_phrase": lambda f: f.catch_phrase(),
    "user_agent": lambda f: f.user_agent(),
    "mime_type": lambda f: f.mime_type(),
    "file_extension": lambda f: f.file_extension(),
    "color_name": lambda f: f.color_name(),
    "currency_code": lambda f: f.currency_code(),
    "country_any": lambda f: f.country(),
    "country_code_any": lambda f: f.country_code(),
    "language_code": lambda f: f.language_code(),
    "domain_word": lambda f: ascii_fold(f.domain_word()) or "example",
    "tld": lambda f: f.tld(),
    "free_email_domain": lambda f: f.free_email_domain(),
    "word": lambda f: f.word(),
    "sentence": lambda f: f.sentence(),
    "paragraph": lambda f: f.paragraph(),
    "uri_path": lambda f: f.uri_path(),
    "iban": lambda f: f.iban(),
    "swift": lambda f: f.swift(),
    "license_plate": lambda f: f.license_plate(),
    "isbn13": lambda f: f.isbn13(separator=""),
    "ean13": lambda f: f.ean13(),
}


def simple_pool(locale: str, name: str) -> np.ndarray:
    return _pool(locale, name)


@lru_cache(maxsize=512)
def _pool(locale: str, name: str) -> np.ndarray:
    with _lock:  # Faker instances are not thread-safe
        fake = _faker(locale, name)
        try:
            return _sample(fake, lambda: _SIMPLE[name](fake))
        except AttributeError:
            # the locale lacks this provider: English data is better than nothing
            fake = _faker("en_US", name)
            return _sample(fake, lambda: _SIMPLE[name](fake))


@lru_cache(maxsize=16)
def person_pool(locale: str) -> dict[str, np.ndarray]:
    with _lock:
        return _person(_faker(locale, "person"))


@lru_cache(maxsize=16)
def address_pool(locale: str) -> dict[str, np.ndarray]:
    with _lock:
        return _address(_faker(locale, "address"))
