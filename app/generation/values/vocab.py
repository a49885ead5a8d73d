"""Locale vocabularies: Faker's provider data turned into NumPy arrays once per locale, and
compiled once into the vocabulary cache (vocab_cache.py): a process reads them from there and
imports Faker only to build a pool no process has built yet.
Design notes: docs/generation.md."""

from __future__ import annotations

import inspect
import threading
import unicodedata
import zlib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from app.generation.values.compose import (
    SLOT,
    DigitTemplates,
    Numbered,
    digit_templates,
    numbered,
    phone_kept_digits,
)
from app.generation.values.locales import locale_country, normalise_locale
from app.generation.values.vocab_cache import cached_array, cached_columns

if TYPE_CHECKING:
    from faker import Faker

POOL_SIZE = 2000
_POOL_SEED = 20_240_601
_lock = threading.Lock()
__all__ = ["address_pool", "ascii_fold", "normalise_locale", "person_pool", "simple_pool"]


@lru_cache(maxsize=16)
def _faker_instance(locale: str) -> Faker:
    from faker import Faker

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
    """Given and family names (and their ASCII forms for e-mails), each given name with the
    gender the locale lists it under: a record's title and gender follow its first name."""
    first: list[str] = []
    last: list[str] = []
    first_ascii: list[str] = []
    last_ascii: list[str] = []
    gender: list[str] = []
    romanised = _has(fake, "first_name_female_pair")
    for _ in range(POOL_SIZE):
        female = fake.random.random() < 0.5
        if romanised:
            pair = fake.first_name_female_pair() if female else fake.first_name_male_pair()
            f, f_rom = pair[0], pair[2]
            ln, _kana2, l_rom = fake.last_name_pair()
        else:
            f = fake.first_name_female() if female else fake.first_name_male()
            ln = fake.last_name()
            f_rom, l_rom = f, ln
        first.append(f)
        last.append(ln)
        first_ascii.append(ascii_fold(f_rom) or "user")
        last_ascii.append(ascii_fold(l_rom) or "name")
        gender.append("female" if female else "male")
    initials = [f[:1] for f in first_ascii]  # for e-mail local parts such as "jsmith"
    return {
        k: np.array(v, dtype=object)
        for k, v in (
            ("first", first),
            ("last", last),
            ("first_ascii", first_ascii),
            ("last_ascii", last_ascii),
            ("first_initial", initials),
            ("gender", gender),
        )
    }


def _address(fake: Faker, locale: str) -> dict[str, np.ndarray]:
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
    # en_US's state_abbr can leave out territories (postcode_in_state knows no territory);
    # hy_AM's and vi_VN's take no argument
    abbr_args = (
        {"include_territories": False}
        if has_abbr and "include_territories" in inspect.signature(fake.state_abbr).parameters
        else {}
    )
    # the country of the locale (Faker's own answer is en_US's for many locales)
    land = locale_country(locale)
    country, code = land.name, land.code
    for _ in range(POOL_SIZE):
        # en_GB writes a flat on a line of its own: one line, so a CSV row stays one line
        cols["street_address"].append(fake.street_address().replace("\n", ", "))
        cols["street_name"].append(fake.street_name())
        cols["building_number"].append(fake.building_number())
        cols["city"].append(fake.city())
        if has_abbr:
            abbr = fake.state_abbr(**abbr_args)
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
    "license_plate": lambda f: f.license_plate(),
    # field semantics (category_values.py)
    "timezone": lambda f: f.timezone(),
    "file_path": lambda f: f.file_path(depth=2),
    "name_prefix": lambda f: f.prefix(),
    "city": lambda f: f.city(),
    "company_template": lambda f: _company_template(f),
}
# pools drawn more often than POOL_SIZE times: cities compose names and suffixes in many locales,
# and a preview of ten records should not show one twice
_SIZES = {"city": 20 * POOL_SIZE}


def _company_template(fake: Faker) -> str:
    """One of the locale's company formats with its family names left as slots (compose.SLOT),
    filled at draw time from the person pool; a locale whose company() has no formats: a name."""
    provider = next((p for p in fake.get_providers() if ".company" in p.__class__.__module__), None)
    formats = getattr(provider, "formats", None)
    if not isinstance(formats, (list, tuple)) or not formats:
        return str(fake.company())
    chosen = str(fake.random_element(formats))
    return str(fake.parse(chosen.replace("{{last_name}}", SLOT)))


def lorem_punctuation(locale: str) -> tuple[str, str]:
    """The locale's word connector and sentence end (`" "` and `"."`; `""` and `"。"` in ja_JP)."""
    pair = cached_array(locale, "lorem_punctuation", lambda: _lorem_punctuation(locale)).tolist()
    return str(pair[0]), str(pair[1])


def _lorem_punctuation(locale: str) -> np.ndarray:
    with _lock:
        fake = _faker(locale, "lorem_punctuation")
        provider = next((p for p in fake.get_providers() if ".lorem" in p.__class__.__module__), None)
    connector = getattr(provider, "word_connector", " ")
    stop = getattr(provider, "sentence_punctuation", ".")
    return np.array(
        [connector if isinstance(connector, str) else " ", stop if isinstance(stop, str) else "."],
        dtype=object,
    )


def simple_pool(locale: str, name: str) -> np.ndarray:
    if name == "phone_number":
        return phone_pool(locale)
    return _pool(locale, name)


def _national_prefix_ok(number: str, calling_code: str) -> bool:
    """A number written with an international prefix (+49 / 0049) names the locale's country."""
    digits = "".join(str(unicodedata.digit(c)) for c in number if c.isdigit())
    text = number.lstrip()
    if text.startswith("+"):
        return digits.startswith(calling_code)
    if digits.startswith("00"):
        return digits[2:].startswith(calling_code)
    return True


def _synthetic_phone(fake: Faker, calling_code: str, digits: int) -> str:
    body = str(fake.random.randint(1, 9)) + "".join(str(fake.random.randint(0, 9)) for _ in range(digits - 1))
    return f"+{calling_code} {body[:3]} {body[3:6]} {body[6:]}"


@lru_cache(maxsize=16)
def phone_pool(locale: str) -> np.ndarray:
    """Telephone numbers in the locale's formats, any international prefix the locale's own
    country's; where Faker has no phone data of the locale's own (it would give US numbers for
    Ireland), E.164-style numbers with the country's calling code."""
    return cached_array(locale, "phone_number", lambda: _phone(locale))


def _phone(locale: str) -> np.ndarray:
    land = locale_country(locale)
    with _lock:
        fake = _faker(locale, "phone_number")
        module = next(
            (
                p.__class__.__module__
                for p in fake.get_providers()
                if ".phone_number" in p.__class__.__module__
            ),
            "",
        )
        # en_PH's, fil_PH's and tl_PH's phone providers have only their own kinds of number
        # (mobile, landline by area), no phone_number: those locales get the synthetic numbers
        own = module.rsplit(".", 1)[-1] in (locale, f"{locale}_{land.code}") and _has(fake, "phone_number")
        numbers = _sample(fake, fake.phone_number) if own else np.empty(0, dtype=object)
        kept = [x for x in numbers.tolist() if _national_prefix_ok(x, land.calling_code)]
        if len(kept) < len(numbers) // 2 or not kept:
            return _sample(fake, lambda: _synthetic_phone(fake, land.calling_code, land.national_digits))
        arr = np.empty(len(kept), dtype=object)
        arr[:] = kept
        return arr


@lru_cache(maxsize=512)
def _pool(locale: str, name: str) -> np.ndarray:
    if name not in _SIMPLE:
        raise KeyError(name)
    return cached_array(locale, name, lambda: _simple(locale, name))


def _simple(locale: str, name: str) -> np.ndarray:
    with _lock:  # Faker instances are not thread-safe
        fake = _faker(locale, name)
        try:
            return _sample(fake, lambda: _SIMPLE[name](fake), _SIZES.get(name, POOL_SIZE))
        except AttributeError:
            # the locale lacks this provider: English data is better than nothing
            fake = _faker("en_US", name)
            return _sample(fake, lambda: _SIMPLE[name](fake), _SIZES.get(name, POOL_SIZE))


@lru_cache(maxsize=16)
def person_pool(locale: str) -> dict[str, np.ndarray]:
    def build() -> dict[str, np.ndarray]:
        with _lock:
            return _person(_faker(locale, "person"))

    return cached_columns(locale, "person", build)


@lru_cache(maxsize=16)
def address_pool(locale: str) -> dict[str, np.ndarray]:
    def build() -> dict[str, np.ndarray]:
        with _lock:
            return _address(_faker(locale, "address"), locale)

    return cached_columns(locale, "address", build)


def country_codes() -> dict[str, np.ndarray]:
    """ISO 3166-1 alpha-2 and alpha-3 codes in the same order (Faker's two address lists)."""

    def build() -> dict[str, np.ndarray]:
        from faker.providers.address import Provider

        return {
            "alpha2": np.array(list(Provider.alpha_2_country_codes), dtype=object),
            "alpha3": np.array(list(Provider.alpha_3_country_codes), dtype=object),
        }

    return cached_columns("any", "country_codes", build)


@lru_cache(maxsize=16)
def phone_templates(locale: str) -> DigitTemplates:
    """The locale's phone pool as templates: prefix and area digits kept, the rest drawn."""
    code = locale_country(locale).calling_code
    return digit_templates(phone_pool(locale).tolist(), lambda v: phone_kept_digits(v, code), False)


@lru_cache(maxsize=32)
def street_templates(locale: str, column: str) -> Numbered:
    """The address pool's streets (or building numbers), their house number drawn afresh."""
    return numbered(address_pool(locale)[column].tolist())
