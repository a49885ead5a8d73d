"""Column generators for the string categories of `categories.py`.
Design notes: docs/generation.md."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

import numpy as np

from app.generation.values import checksums, compose, vocab, wordlists
from app.generation.values.textcodes import small_int_texts

HEX = np.array(list("0123456789abcdef"), dtype=object)


@dataclass
class CategoryContext:
    """What a category generator may read: the generator, the locale and the group indexes."""

    rng: np.random.Generator
    locale: str
    # (group, pool size) -> row indexes into that group's pool, shared by the object's fields
    shared: Callable[[str, int], np.ndarray]


CategoryFn = Callable[[CategoryContext, int], list[str]]


def _take(pool: np.ndarray, idx: np.ndarray) -> list[str]:
    texts: list[str] = pool[idx].tolist()
    return texts


def _pick(c: CategoryContext, pool: np.ndarray, n: int) -> list[str]:
    texts: list[str] = pool[c.rng.integers(0, len(pool), size=n)].tolist()
    return texts


def _person(c: CategoryContext, n: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    pool = vocab.person_pool(c.locale)
    size = len(pool["first"])
    first = c.shared("person.first", size)[:n]
    last = c.shared("person.last", size)[:n]
    return pool, first, last


def first_name(c: CategoryContext, n: int) -> list[str]:
    pool, first, _ = _person(c, n)
    return _take(pool["first"], first)


def last_name(c: CategoryContext, n: int) -> list[str]:
    pool, _, last = _person(c, n)
    return _take(pool["last"], last)


def full_name(c: CategoryContext, n: int) -> list[str]:
    pool, first, last = _person(c, n)
    f, ln = pool["first"][first], pool["last"][last]
    # family name first, no space
    joined = ln + f if c.locale.startswith(("ja", "zh", "ko")) else f + " " + ln
    texts: list[str] = joined.tolist()
    return texts


_EMAIL_STYLES = 4


def _local_parts(c: CategoryContext, n: int, seps: tuple[str, ...]) -> np.ndarray:
    pool, first, last = _person(c, n)
    f, ln = pool["first_ascii"][first], pool["last_ascii"][last]
    style = c.rng.integers(0, _EMAIL_STYLES, size=n)
    digits = small_int_texts()[c.rng.integers(1, 100, size=n)]
    sep = np.array(seps, dtype=object)[c.rng.integers(0, len(seps), size=n)]
    out = np.empty(n, dtype=object)
    # build each style only for its own rows: object-array concatenation costs per element
    s0, s1, s2, s3 = (np.flatnonzero(style == k) for k in range(_EMAIL_STYLES))
    out[s0] = f[s0] + sep[s0] + ln[s0]
    out[s1] = pool["first_initial"][first[s1]] + ln[s1]
    out[s2] = f[s2] + sep[s2] + ln[s2] + digits[s2]
    out[s3] = ln[s3] + digits[s3]
    return out


def email(c: CategoryContext, n: int) -> list[str]:
    local = _local_parts(c, n, (".", "_", ""))
    domains = vocab.simple_pool(c.locale, "free_email_domain")
    dom = domains[c.rng.integers(0, len(domains), size=n)]
    texts: list[str] = (local + "@" + dom).tolist()
    return texts


def username(c: CategoryContext, n: int) -> list[str]:
    texts: list[str] = _local_parts(c, n, (".", "_")).tolist()
    return texts


_RENUMBERED = ("street_address", "building_number")  # the pool's street, a fresh house number


def _address(c: CategoryContext, n: int, column: str) -> list[str]:
    if column == "city":
        return _take(city_pool(c.locale), _city_rows(c, n))
    pool = vocab.address_pool(c.locale)
    idx = c.shared("address", len(pool["city"]))[:n]
    if column in _RENUMBERED:
        return compose.fill_number(vocab.street_templates(c.locale, column), idx, _house_keys(c, n))
    return _take(pool[column], idx)


def city_pool(locale: str) -> np.ndarray:
    """The locale's cities: a pool of its own, wider than the address pool's (a city is not
    tied to a postcode in Faker's data, but to a region in none of the supported locales)."""
    return vocab.simple_pool(locale, "city")


def _city_rows(c: CategoryContext, n: int) -> np.ndarray:
    return c.shared("address.city", len(city_pool(c.locale)))[:n]


def _house_keys(c: CategoryContext, n: int) -> np.ndarray:
    """The house numbers of the record's address, as keys shared by the object's fields: a
    street and an address field of one object give the same number."""
    return c.shared("address.number", 1 << 62)[:n]


def address(c: CategoryContext, n: int) -> list[str]:
    pool = vocab.address_pool(c.locale)
    idx = c.shared("address", len(pool["city"]))[:n]
    street = np.empty(n, dtype=object)
    street[:] = compose.fill_number(
        vocab.street_templates(c.locale, "street_address"), idx, _house_keys(c, n)
    )
    cities = city_pool(c.locale)[_city_rows(c, n)]
    texts: list[str] = (street + ", " + pool["postcode"][idx] + " " + cities).tolist()
    return texts


def phone(c: CategoryContext, n: int) -> list[str]:
    t = vocab.phone_templates(c.locale)
    return compose.fill_digits(t, c.rng, c.rng.integers(0, len(t.codes), size=n))


def uuid4(c: CategoryContext, n: int) -> list[str]:
    raw = c.rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    return format_uuid(raw)


_HEX_BYTES = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_UUID_DIGIT_COLS = np.array([i for i in range(36) if i not in (8, 13, 18, 23)])


def format_uuid(raw: np.ndarray) -> list[str]:
    """(n, 16) bytes -> canonical lower-case UUID strings: one ASCII matrix with a newline after
    each row, decoded and split in C (half the cost of a code-point view per value)."""
    raw = np.asarray(raw, dtype=np.uint8)
    n = raw.shape[0]
    if not n:
        return []
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = raw >> 4
    nibbles[:, 1::2] = raw & 0x0F
    out = np.full((n, 37), ord("-"), dtype=np.uint8)
    out[:, _UUID_DIGIT_COLS] = _HEX_BYTES[nibbles]
    out[:, 36] = ord("\n")
    return out.ravel()[:-1].tobytes().decode("ascii").split("\n")


def ipv4(c: CategoryContext, n: int) -> list[str]:
    o = c.rng.integers(1, 255, size=(n, 4))
    o[:, 0] = c.rng.integers(11, 224, size=n)
    return [f"{a}.{b}.{x}.{d}" for a, b, x, d in o.tolist()]


def ipv6(c: CategoryContext, n: int) -> list[str]:
    g = c.rng.integers(0, 65536, size=(n, 7))
    return [f"2001:db8:{a:x}:{b:x}:{x:x}:{d:x}:{e:x}:{f:x}" for a, b, x, d, e, f, _ in g.tolist()]


def mac_address(c: CategoryContext, n: int) -> list[str]:
    o = c.rng.integers(0, 256, size=(n, 6))
    o[:, 0] = (o[:, 0] & 0xFC) | 0x02  # locally administered unicast
    return [":".join(f"{x:02x}" for x in row) for row in o.tolist()]


def hex_color(c: CategoryContext, n: int) -> list[str]:
    return [f"#{v:06x}" for v in c.rng.integers(0, 1 << 24, size=n).tolist()]


def domain_name(c: CategoryContext, n: int) -> list[str]:
    words = vocab.simple_pool(c.locale, "domain_word")
    tlds = vocab.simple_pool(c.locale, "tld")
    w = words[c.rng.integers(0, len(words), size=n)]
    t = tlds[c.rng.integers(0, len(tlds), size=n)]
    texts: list[str] = (w + "." + t).tolist()
    return texts


def url(c: CategoryContext, n: int) -> list[str]:
    hosts = np.array(domain_name(c, n), dtype=object)
    paths = vocab.simple_pool(c.locale, "uri_path")
    p = paths[c.rng.integers(0, len(paths), size=n)]
    texts: list[str] = ("https://www." + hosts + "/" + p).tolist()
    return texts


def slug(c: CategoryContext, n: int) -> list[str]:
    words = np.array(
        [vocab.ascii_fold(w) or "item" for w in vocab.simple_pool("en_US", "word")], dtype=object
    )
    a = words[c.rng.integers(0, len(words), size=n)]
    b = words[c.rng.integers(0, len(words), size=n)]
    texts: list[str] = (a + "-" + b).tolist()
    return texts


_PASSWORD_CHARS = np.array(list("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%&*+-=?@^_"))


def password(c: CategoryContext, n: int) -> list[str]:
    chars = _PASSWORD_CHARS[c.rng.integers(0, len(_PASSWORD_CHARS), size=(n, 12))]
    return ["".join(r) for r in chars.tolist()]


def file_name(c: CategoryContext, n: int) -> list[str]:
    words = np.array(
        [vocab.ascii_fold(w) or "file" for w in vocab.simple_pool("en_US", "word")], dtype=object
    )
    ext = vocab.simple_pool(c.locale, "file_extension")
    texts: list[str] = (
        words[c.rng.integers(0, len(words), size=n)] + "." + ext[c.rng.integers(0, len(ext), size=n)]
    ).tolist()
    return texts


@lru_cache(maxsize=16)
def _lorem(locale: str) -> compose.Lorem:
    connector, stop = vocab.lorem_punctuation(locale)
    return compose.lorem(
        vocab.simple_pool(locale, "word").tolist(), connector, stop, zlib.crc32(locale.encode())
    )


def sentence(c: CategoryContext, n: int) -> list[str]:
    """A sentence of 3 to 9 of the locale's lorem words (Faker's own sentences: 6 +- 40%)."""
    return compose.sentences(_lorem(c.locale), c.rng, n, (1, 1))


def paragraph(c: CategoryContext, n: int) -> list[str]:
    """Two to four such sentences (Faker's paragraphs: 3 +- 40%)."""
    return compose.sentences(_lorem(c.locale), c.rng, n, (2, 4))


@lru_cache(maxsize=16)
def _company_templates(locale: str) -> compose.Templates:
    return compose.slot_templates(vocab.simple_pool(locale, "company_template").tolist())


def company(c: CategoryContext, n: int) -> list[str]:
    """One of the locale's company formats, its family names drawn from the locale's."""
    return compose.fill_slots(_company_templates(c.locale), vocab.person_pool(c.locale)["last"], c.rng, n)


# English job titles at a level: Faker's 639 titles alone repeat within a page of records
_LEVELS = ("", "Senior ", "Junior ", "Lead ", "Principal ", "Associate ", "Assistant ", "Trainee ")


def job_title(c: CategoryContext, n: int) -> list[str]:
    jobs = vocab.simple_pool(c.locale, "job_title")
    picked = jobs[c.rng.integers(0, len(jobs), size=n)]
    if not c.locale.startswith("en"):
        texts: list[str] = picked.tolist()
        return texts
    levels = _curated(_LEVELS)[c.rng.integers(0, len(_LEVELS), size=n)]
    texts = (levels + picked).tolist()
    return texts


# -- field semantics: curated pools, composed names, codes ----------------------------------


@lru_cache(maxsize=64)
def _curated(words: tuple[str, ...]) -> np.ndarray:
    arr = np.empty(len(words), dtype=object)
    arr[:] = list(words)
    return arr


def _listed(words: tuple[str, ...]) -> CategoryFn:
    def gen(c: CategoryContext, n: int) -> list[str]:
        return _pick(c, _curated(words), n)

    return gen


def _composed(*parts: tuple[str, ...]) -> CategoryFn:
    """Space-joined draws, one word from each list ("Ergonomic Steel Chair")."""

    def gen(c: CategoryContext, n: int) -> list[str]:
        out = _curated(parts[0])[c.rng.integers(0, len(parts[0]), size=n)]
        for words in parts[1:]:
            out = out + " " + _curated(words)[c.rng.integers(0, len(words), size=n)]
        texts: list[str] = out.tolist()
        return texts

    return gen


def _symbols(rng: np.random.Generator, n: int, width: int, alphabet: np.ndarray) -> list[str]:
    """n strings of `width` symbols of an ASCII alphabet (uint8 codes): one matrix, decoded and
    split in C as in format_uuid."""
    if not n:
        return []
    out = np.empty((n, width + 1), dtype=np.uint8)
    out[:, :width] = alphabet[rng.integers(0, len(alphabet), size=(n, width))]
    out[:, width] = ord("\n")
    return out.ravel()[:-1].tobytes().decode("ascii").split("\n")


_TOKEN_BYTES = np.frombuffer(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8
)


def _hex(width: int) -> CategoryFn:
    def gen(c: CategoryContext, n: int) -> list[str]:
        return _symbols(c.rng, n, width, _HEX_BYTES)

    return gen


def token(c: CategoryContext, n: int) -> list[str]:
    return _symbols(c.rng, n, 32, _TOKEN_BYTES)


def semver(c: CategoryContext, n: int) -> list[str]:
    texts = small_int_texts()
    major = texts[np.minimum(c.rng.geometric(0.45, size=n) - 1, 20)]
    minor = texts[c.rng.integers(0, 20, size=n)]
    patch = texts[c.rng.integers(0, 30, size=n)]
    out: list[str] = (major + "." + minor + "." + patch).tolist()
    return out


def sku(c: CategoryContext, n: int) -> list[str]:
    letters = _symbols(c.rng, n, 3, _TOKEN_BYTES[:26])
    digits = _symbols(c.rng, n, 5, _HEX_BYTES[:10])
    return [f"{a}-{b}" for a, b in zip(letters, digits, strict=True)]


def cvv(c: CategoryContext, n: int) -> list[str]:
    return _symbols(c.rng, n, 3, _HEX_BYTES[:10])


def card_expiry(c: CategoryContext, n: int) -> list[str]:
    texts = small_int_texts()
    month = np.array([f"{m:02d}" for m in range(1, 13)], dtype=object)[c.rng.integers(0, 12, size=n)]
    out: list[str] = (month + "/" + texts[c.rng.integers(26, 32, size=n)]).tolist()
    return out


_POINTER_PARTS = ("data", "items", "user", "address", "properties", "name", "id", "tags", "0", "1", "2")


def json_pointer(c: CategoryContext, n: int) -> list[str]:
    parts = _curated(_POINTER_PARTS)
    out = "/" + parts[c.rng.integers(0, 8, size=n)] + "/" + parts[c.rng.integers(0, len(parts), size=n)]
    texts: list[str] = out.tolist()
    return texts


def directory(c: CategoryContext, n: int) -> list[str]:
    return _pick(c, _directories(), n)


@lru_cache(maxsize=1)
def _directories() -> np.ndarray:
    return np.array(
        sorted({p.rsplit("/", 1)[0] for p in vocab.simple_pool("en_US", "file_path")}), dtype=object
    )


@lru_cache(maxsize=1)
def _alpha3() -> dict[str, str]:
    """ISO 3166-1 alpha-2 -> alpha-3 (Faker's two code lists are in the same order)."""
    codes = vocab.country_codes()
    return dict(zip(codes["alpha2"].tolist(), codes["alpha3"].tolist(), strict=True))


def name_prefix(c: CategoryContext, n: int) -> list[str]:
    return _pick(c, _prefixes(c.locale), n)


@lru_cache(maxsize=16)
def _prefixes(locale: str) -> np.ndarray:
    # en_US also lists "Ind.", which readers do not recognise as a title
    pool = vocab.simple_pool(locale, "name_prefix")
    kept = pool[pool != "Ind."]
    return kept if len(kept) else pool


def country_code3(c: CategoryContext, n: int) -> list[str]:
    """The alpha-3 code of the record's address country (the alpha-2 field's country)."""
    table = _alpha3()
    return [table.get(code, code) for code in _address(c, n, "country_code")]


_LANG_CODES = tuple(code for code, _ in wordlists.LANGUAGES)
_LANG_NAMES = tuple(name for _, name in wordlists.LANGUAGES)


def _simple(pool: str) -> Callable[[CategoryContext, int], list[str]]:
    def gen(c: CategoryContext, n: int) -> list[str]:
        return _pick(c, vocab.simple_pool(c.locale, pool), n)

    return gen


def _address_col(column: str) -> Callable[[CategoryContext, int], list[str]]:
    def gen(c: CategoryContext, n: int) -> list[str]:
        return _address(c, n, column)

    return gen


_GENDERS = np.array(["female", "male", "non-binary"], dtype=object)

STRING_GENERATORS: dict[str, CategoryFn] = {
    "first_name": first_name,
    "last_name": last_name,
    "full_name": full_name,
    "username": username,
    "email": email,
    "phone": phone,
    "job_title": job_title,
    "gender": lambda c, n: _pick(c, _GENDERS, n),
    "street_address": _address_col("street_address"),
    "street_name": _address_col("street_name"),
    "building_number": _address_col("building_number"),
    "city": _address_col("city"),
    "state": _address_col("state"),
    "state_abbr": _address_col("state_abbr"),
    "postcode": _address_col("postcode"),
    "country": _address_col("country"),
    "country_code": _address_col("country_code"),
    "address": address,
    "company": company,
    "catch_phrase": _simple("catch_phrase"),
    "iban": checksums.iban,
    "swift": checksums.swift,
    "credit_card_number": checksums.credit_card_number,
    "currency_code": _simple("currency_code"),
    "isbn": checksums.isbn,
    "ean13": checksums.ean13,
    "upc": checksums.upc,
    "url": url,
    "domain_name": domain_name,
    "ipv4": ipv4,
    "ipv6": ipv6,
    "mac_address": mac_address,
    "user_agent": _simple("user_agent"),
    "slug": slug,
    "password": password,
    "uuid": uuid4,
    "word": _simple("word"),
    "sentence": sentence,
    "paragraph": paragraph,
    "color_name": _simple("color_name"),
    "hex_color": hex_color,
    "file_name": file_name,
    "file_extension": _simple("file_extension"),
    "mime_type": _simple("mime_type"),
    "language_code": _listed(_LANG_CODES),
    "license_plate": _simple("license_plate"),
    # field semantics
    "skill": _listed(wordlists.SKILLS),
    "hobby": _listed(wordlists.HOBBIES),
    "product_name": _composed(
        wordlists.PRODUCT_ADJECTIVES, wordlists.PRODUCT_MATERIALS, wordlists.PRODUCT_NOUNS
    ),
    "label": _composed(wordlists.LABEL_ADJECTIVES, wordlists.LABEL_NOUNS),
    "department": _listed(wordlists.DEPARTMENTS),
    "industry": _listed(wordlists.INDUSTRIES),
    "category": _listed(wordlists.CATEGORIES),
    "tag": _listed(wordlists.TAGS),
    "title": _simple("catch_phrase"),
    "name_prefix": name_prefix,
    "status": _listed(wordlists.STATUSES),
    "role": _listed(wordlists.ROLES),
    "priority": _listed(wordlists.PRIORITIES),
    "environment": _listed(wordlists.ENVIRONMENTS),
    "http_method": _listed(wordlists.HTTP_METHODS),
    "unit": _listed(wordlists.UNITS),
    "license": _listed(wordlists.LICENSES),
    "git_branch": _listed(wordlists.GIT_BRANCHES),
    "shell_command": _listed(wordlists.COMMANDS),
    "container_image": _listed(wordlists.CONTAINER_IMAGES),
    "language_name": _listed(_LANG_NAMES),
    "locale": _listed(wordlists.LOCALES),
    "country_code3": country_code3,
    "timezone": _simple("timezone"),
    "file_path": _simple("file_path"),
    "directory": directory,
    "semver": semver,
    "md5": _hex(32),
    "sha1": _hex(40),
    "sha256": _hex(64),
    "sha512": _hex(128),
    "token": token,
    "json_pointer": json_pointer,
    "sku": sku,
    "cvv": cvv,
    "card_expiry": card_expiry,
    "expression": _listed(wordlists.EXPRESSIONS),
    "identifier": _listed(wordlists.IDENTIFIERS),
    "css_style": _listed(wordlists.CSS_STYLES),
    "event_handler": _listed(wordlists.EVENT_HANDLERS),
    "charset": _listed(wordlists.CHARSETS),
    "content_encoding": _listed(wordlists.CONTENT_ENCODINGS),
    "cron": _listed(wordlists.CRON_EXPRESSIONS),
    "glob": _listed(wordlists.GLOBS),
    "duration_text": _listed(wordlists.DURATIONS),
    "github_action": _listed(wordlists.GITHUB_ACTIONS),
    "runner": _listed(wordlists.RUNNERS),
    "shell_name": _listed(wordlists.SHELLS),
    "name_suffix": _listed(wordlists.NAME_SUFFIXES),
    "vehicle_make": _listed(wordlists.VEHICLE_MAKES),
    "vehicle_model": _listed(wordlists.VEHICLE_MODELS),
    "package_name": _listed(wordlists.PACKAGES),
    "cli_arguments": _listed(wordlists.CLI_ARGUMENTS),
    "data_format": _listed(wordlists.DATA_FORMATS),
    "xpath": _listed(wordlists.XPATHS),
    "algorithm": _listed(wordlists.ALGORITHMS),
    "platform": _listed(wordlists.PLATFORMS),
    "connection_string": _listed(wordlists.CONNECTION_STRINGS),
}

# Plausible values for fields the schema and rules leave unbounded (or bounded at one end only).
# A field bounded at both ends draws from its whole range; a category then only shapes the values
# (a price's two decimals, an age's whole years), see numbers.py / temporal.py.
# numeric categories: (low, high, decimal places) windows for the number generators
NUMERIC_WINDOWS: dict[str, tuple[Decimal, Decimal, int]] = {
    "age": (Decimal(18), Decimal(90), 0),
    "quantity": (Decimal(1), Decimal(100), 0),
    "year": (Decimal(1950), Decimal(2030), 0),
    "price": (Decimal("0.5"), Decimal(2000), 2),
    "latitude": (Decimal(-90), Decimal(90), 6),
    "longitude": (Decimal(-180), Decimal(180), 6),
}
# temporal categories: ISO windows for dates / timestamps, fixed (not "today") so that a seed
# gives the same bytes on every day; "recent" is the last five years before REFERENCE_DAY
REFERENCE_DAY = "2026-06-30"
TEMPORAL_WINDOWS: dict[str, tuple[str, str]] = {
    "date_of_birth": ("1935-07-01", "2008-06-30"),  # people aged 18 to 90 on REFERENCE_DAY
    "date": ("2015-01-01", "2026-12-31"),
    "datetime": ("2021-07-01", REFERENCE_DAY),
}
RECENT_WINDOW = TEMPORAL_WINDOWS["datetime"]  # dates and timestamps named created_at, updated, ...
DEFAULT_DATE_WINDOW = ("2000-01-01", "2030-12-31")  # other dates and timestamps
