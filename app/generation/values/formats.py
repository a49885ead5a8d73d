"""Column generators for string formats: JSON Schema `format` values and the `xsd:<builtin>` lexical
spaces the XSD loader reports (anyURI, base64Binary, NCName, gYear, ...).
Design notes: docs/generation.md."""

from __future__ import annotations

import base64
from collections.abc import Callable

import numpy as np

from app.generation.model import LeafContext
from app.generation.values import category_values as cv
from app.generation.values import vocab

FormatFn = Callable[[LeafContext, int, int, int | None], list[str]]

_LOWER = np.array(list("abcdefghijklmnopqrstuvwxyz"), dtype=object)
_ALNUM = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789"), dtype=object)

UNSUPPORTED_FORMATS = {
    "xsd:ENTITY": "xsd:ENTITY values must name an unparsed entity declared in a DTD, which records cannot carry",
    "xsd:ENTITIES": "xsd:ENTITIES values must name unparsed entities declared in a DTD, which records cannot carry",
    "xsd:NOTATION": "xsd:NOTATION values must name a declared notation",
}


def _cat(c: LeafContext, name: str, n: int) -> list[str]:
    return cv.STRING_GENERATORS[name](cv.CategoryContext(c.rng, c.locale, c.shared), n)


def _lengths(c: LeafContext, n: int, lo: int, hi: int | None, default: tuple[int, int]) -> np.ndarray:
    a = max(lo, default[0])
    b = default[1] if hi is None else min(hi, max(default[1], lo))
    if hi is not None and a > hi:
        a = hi
    b = max(a, b)
    return c.rng.integers(a, b + 1, size=n)


def _codes(c: LeafContext, lengths: np.ndarray, alphabet: np.ndarray) -> list[str]:
    width = int(lengths.max()) if len(lengths) else 0
    chars = alphabet[c.rng.integers(0, len(alphabet), size=(len(lengths), max(width, 1)))]
    return ["".join(row[:k]) for row, k in zip(chars.tolist(), lengths.tolist(), strict=True)]


def ncname(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    lengths = _lengths(c, n, max(lo, 1), hi, (4, 12))
    first = _LOWER[c.rng.integers(0, 26, size=n)]
    rest = _codes(c, np.maximum(lengths - 1, 0), _ALNUM)
    return [f + r for f, r in zip(first.tolist(), rest, strict=True)]


def nmtokens(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    a, b = ncname(c, n, 1, 8), ncname(c, n, 1, 8)
    return [f"{x} {y}" for x, y in zip(a, b, strict=True)]


def _binary(c: LeafContext, n: int, lo: int, hi: int | None) -> list[bytes]:
    lengths = _lengths(c, n, lo, hi, (4, 16))
    raw = c.rng.integers(0, 256, size=(n, max(int(lengths.max()) if n else 0, 1)), dtype=np.uint8)
    return [row[:k].tobytes() for row, k in zip(raw, lengths.tolist(), strict=True)]


def hex_binary(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [b.hex().upper() for b in _binary(c, n, lo, hi)]


def base64_binary(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [base64.b64encode(b).decode() for b in _binary(c, n, lo, hi)]


def duration(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    d = c.rng.integers(0, 60, size=(n, 3))
    style = c.rng.integers(0, 3, size=n)
    out = []
    for (a, b, x), s in zip(d.tolist(), style.tolist(), strict=True):
        if s == 0:
            out.append(f"P{a + 1}D")
        elif s == 1:
            out.append(f"PT{b % 24 + 1}H{x}M")
        else:
            out.append(f"P{a % 5}Y{b % 12 + 1}M{x % 28 + 1}DT{a % 24}H")
    return out


def json_pointer(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    a = ncname(c, n, 1, 8)
    b = c.rng.integers(0, 10, size=n).tolist()
    return [f"/{x}/{y}" for x, y in zip(a, b, strict=True)]


def relative_json_pointer(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [
        f"{k}/{p[1:]}"
        for k, p in zip(c.rng.integers(0, 3, size=n).tolist(), json_pointer(c, n, lo, hi), strict=True)
    ]


_REGEXES = np.array(
    [r"^[a-z]+$", r"^\d{3}-\d{4}$", r"[A-Z][a-z]*", r"^(foo|bar)+$", r"\w+@\w+\.com"], dtype=object
)


def regex(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    texts: list[str] = _REGEXES[c.rng.integers(0, len(_REGEXES), size=n)].tolist()
    return texts


def uri_reference(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    paths = vocab.simple_pool(c.locale, "uri_path")
    texts: list[str] = ("/" + paths[c.rng.integers(0, len(paths), size=n)]).tolist()
    return texts


def uri_template(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    hosts = _cat(c, "domain_name", n)
    return [f"https://{h}/items/{{id}}" for h in hosts]


def language(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    tags = np.array(["en", "en-US", "de", "de-DE", "fr", "fr-FR", "ja", "es", "it", "nl"], dtype=object)
    texts: list[str] = tags[c.rng.integers(0, len(tags), size=n)].tolist()
    return texts


def _year(c: LeafContext, n: int) -> np.ndarray:
    return c.rng.integers(1950, 2031, size=n)


def g_year(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [str(y) for y in _year(c, n).tolist()]


def g_year_month(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    m = c.rng.integers(1, 13, size=n)
    return [f"{y}-{x:02d}" for y, x in zip(_year(c, n).tolist(), m.tolist(), strict=True)]


def g_month(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [f"--{x:02d}" for x in c.rng.integers(1, 13, size=n).tolist()]


def g_day(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    return [f"---{x:02d}" for x in c.rng.integers(1, 29, size=n).tolist()]


def g_month_day(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    m = c.rng.integers(1, 13, size=n)
    d = c.rng.integers(1, 29, size=n)
    return [f"--{x:02d}-{y:02d}" for x, y in zip(m.tolist(), d.tolist(), strict=True)]


def token(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    words = vocab.simple_pool(c.locale, "word")
    a = words[c.rng.integers(0, len(words), size=n)]
    b = words[c.rng.integers(0, len(words), size=n)]
    texts: list[str] = (a + " " + b).tolist()
    return texts


def _category(name: str) -> FormatFn:
    def gen(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
        return _cat(c, name, n)

    return gen


FORMAT_GENERATORS: dict[str, FormatFn] = {
    "email": _category("email"),
    "idn-email": _category("email"),
    "hostname": _category("domain_name"),
    "idn-hostname": _category("domain_name"),
    "ipv4": _category("ipv4"),
    "ipv6": _category("ipv6"),
    "uuid": _category("uuid"),
    "uri": _category("url"),
    "iri": _category("url"),
    "uri-reference": uri_reference,
    "iri-reference": uri_reference,
    "uri-template": uri_template,
    "json-pointer": json_pointer,
    "relative-json-pointer": relative_json_pointer,
    "regex": regex,
    "duration": duration,
    "xsd:anyURI": _category("url"),
    "xsd:duration": duration,
    "xsd:base64Binary": base64_binary,
    "xsd:hexBinary": hex_binary,
    "xsd:QName": ncname,
    "xsd:NCName": ncname,
    "xsd:Name": ncname,
    "xsd:ID": ncname,
    "xsd:IDREF": ncname,
    "xsd:IDREFS": ncname,
    "xsd:NMTOKEN": ncname,
    "xsd:NMTOKENS": nmtokens,
    "xsd:language": language,
    "xsd:gYear": g_year,
    "xsd:gYearMonth": g_year_month,
    "xsd:gMonth": g_month,
    "xsd:gDay": g_day,
    "xsd:gMonthDay": g_month_day,
    "xsd:token": token,
    "xsd:normalizedString": token,
}

# formats whose length facets count octets, not characters
OCTET_LENGTH_FORMATS = {"xsd:hexBinary", "xsd:base64Binary"}


def short_fallback(fmt: str) -> FormatFn | None:
    """A generator of the shortest plausible values of a format, for tight maxLength facets."""
    if fmt in ("email", "idn-email"):

        def gen(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
            local = ncname(c, n, 1, max(1, (hi or 12) - 6))
            return [f"{x}@ex.io" for x in local]

        return gen
    if fmt in ("hostname", "idn-hostname"):

        def host(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
            return [f"{x}.io" for x in ncname(c, n, max(1, lo - 3), max(1, (hi or 12) - 3))]

        return host
    if fmt in ("uri", "iri", "xsd:anyURI"):

        def uri(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
            return [f"http://{x}.io" for x in ncname(c, n, max(1, lo - 10), max(1, (hi or 20) - 10))]

        return uri
    return None
