"""Identifiers with check digits, drawn as whole digit matrices: IBAN (ISO 13616 mod-97, the
country's BBAN shape and, where an independent checker knows one, its national check digits),
card numbers (Luhn, brand prefix), ISBN-13, EAN-13 and UPC-A (GS1 mod-10), and SWIFT/BIC codes.
Design notes: docs/generation.md (checksummed identifiers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.generation.values.locales import locale_country

if TYPE_CHECKING:
    from app.generation.values.category_values import CategoryContext

_DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)
_LETTERS = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype=np.uint8)
_ALNUM = np.concatenate([_DIGITS, _LETTERS])

# BBAN structure of each IBAN country (SWIFT IBAN registry): runs of n digits / a upper-case
# letters / c letters or digits. Belgium is left out: its BBAN must name a registered bank.
IBAN_BBAN: dict[str, str] = {
    "AT": "5n11n", "AZ": "4a20c", "BR": "8n5n10n1a1c", "CH": "5n12c", "CZ": "4n6n10n",
    "DE": "8n10n", "DK": "4n9n1n", "ES": "4n4n1n1n10n", "FI": "3n11n", "FR": "5n5n11c2n",
    "GB": "4a6n8n", "GE": "2a16n", "GR": "3n4n16c", "HR": "7n10n", "HU": "3n4n1n15n1n",
    "IE": "4a6n8n", "IL": "3n3n13n", "IT": "1a5n5n12c", "MK": "3n10c2n", "NL": "4a10n",
    "NO": "4n6n1n", "PL": "8n16n", "PT": "4n4n11n2n", "RO": "4a16c", "SE": "3n16n1n",
    "SI": "5n8n2n", "SK": "4n6n10n", "UA": "6n19c",
}  # fmt: skip
IBAN_COUNTRIES: tuple[str, ...] = tuple(IBAN_BBAN)


def _kinds(spec: str) -> np.ndarray:
    """'4a6n' -> per-position kind codes (0 digit, 1 letter, 2 letter-or-digit)."""
    out: list[int] = []
    num = ""
    for ch in spec:
        if ch.isdigit():
            num += ch
        else:
            out += [{"n": 0, "a": 1, "c": 2}[ch]] * int(num)
            num = ""
    return np.array(out, dtype=np.int8)


_BBAN_KINDS = {cc: _kinds(spec) for cc, spec in IBAN_BBAN.items()}


def decode_rows(chars: np.ndarray) -> list[str]:
    """(n, k) ASCII matrix -> n strings, decoded and split in C."""
    n = chars.shape[0]
    if not n:
        return []
    out = np.empty((n, chars.shape[1] + 1), dtype=np.uint8)
    out[:, :-1] = chars
    out[:, -1] = ord("\n")
    return out.ravel()[:-1].tobytes().decode("ascii").split("\n")


def _digit_value(col: np.ndarray) -> np.ndarray:
    return col.astype(np.int64) - ord("0")


def _weighted(digits: np.ndarray, weights: tuple[int, ...] | np.ndarray) -> np.ndarray:
    total: np.ndarray = (digits.astype(np.int64) * np.asarray(weights, dtype=np.int64)).sum(axis=1)
    return total


def _es_check(digits: np.ndarray) -> np.ndarray:
    """Spanish CCC check digit (mod 11, weights 2^i) of each row of 10 digits."""
    s = _weighted(digits, 2 ** np.arange(10) % 11) % 11
    return np.where(s < 2, s, 11 - s)


def _national_checks(cc: str, bban: np.ndarray, rng: np.random.Generator) -> None:
    """Set, in place, the national check digits an IBAN checker verifies for some countries."""
    d = bban - ord("0")  # meaningful on the all-digit columns only
    if cc == "ES":  # EEEE OOOO DD NNNNNNNNNN: one digit over 00+entity+office, one over the account
        bban[:, 8] = _DIGITS[_es_check(np.concatenate([np.zeros((len(d), 2), np.int64), d[:, :8]], axis=1))]
        bban[:, 9] = _DIGITS[_es_check(d[:, 10:20])]
    elif cc == "NO":  # 10 digits + mod-11 digit; a remainder of 10 has no digit: redraw those
        weights = (6, 7, 8, 9, 4, 5, 6, 7, 8, 9)
        bban[:, 0] = _DIGITS[rng.integers(1, 10, size=len(bban))]  # no bank number 0000 (a short form)
        while True:
            check = _weighted(bban[:, :10] - ord("0"), weights) % 11
            bad = check == 10
            if not bad.any():
                break
            bban[bad, 4:10] = _DIGITS[rng.integers(0, 10, size=(int(bad.sum()), 6))]
        bban[:, 10] = _DIGITS[check]
    elif cc == "FR":  # RIB key: 97 - (89 bank + 15 branch + 3 account) mod 97 (account all digits)
        p = 10 ** np.arange(10, -1, -1, dtype=np.int64)
        bank, branch, acct = (
            _weighted(d[:, :5], p[-5:]),
            _weighted(d[:, 5:10], p[-5:]),
            _weighted(d[:, 10:21], p),
        )
        key = 97 - (89 * bank + 15 * branch + 3 * acct) % 97
        bban[:, 21], bban[:, 22] = _DIGITS[key // 10], _DIGITS[key % 10]


def _iban_rows(cc: str, m: int, rng: np.random.Generator) -> list[str]:
    kinds = _BBAN_KINDS[cc]
    k = len(kinds)
    digits = _DIGITS[rng.integers(0, 10, size=(m, k))]
    letters = _LETTERS[rng.integers(0, 26, size=(m, k))]
    # 'c' runs hold digits: national account numbers are numeric in practice
    bban = np.where(kinds == 1, letters, digits).astype(np.uint8)
    _national_checks(cc, bban, rng)
    # ISO 7064 mod 97-10 over BBAN + country + "00", letters as two digits (A = 10), column by column
    r = np.zeros(m, dtype=np.int64)
    for j in range(k):
        if kinds[j] == 0:
            r = (r * 10 + _digit_value(bban[:, j])) % 97
        else:
            v = bban[:, j].astype(np.int64)
            letter = v >= ord("A")
            r = np.where(letter, (r * 100 + v - 55) % 97, (r * 10 + v - ord("0")) % 97)
    for ch in cc:
        r = (r * 100 + ord(ch) - 55) % 97
    check = 98 - (r * 100) % 97
    out = np.empty((m, 4 + k), dtype=np.uint8)
    out[:, 0], out[:, 1] = ord(cc[0]), ord(cc[1])
    out[:, 2], out[:, 3] = _DIGITS[check // 10], _DIGITS[check % 10]
    out[:, 4:] = bban
    return decode_rows(out)


def iban(c: CategoryContext, n: int) -> list[str]:
    """IBANs of the locale's country where it uses IBAN, else of the IBAN countries evenly."""
    own = locale_country(c.locale).code
    if own in IBAN_BBAN:
        return _iban_rows(own, n, c.rng)
    which = c.rng.integers(0, len(IBAN_COUNTRIES), size=n)
    out = np.empty(n, dtype=object)
    for i, cc in enumerate(IBAN_COUNTRIES):
        rows = np.flatnonzero(which == i)
        if len(rows):
            out[rows] = _iban_rows(cc, len(rows), c.rng)
    texts: list[str] = out.tolist()
    return texts


def luhn_complete(digits: np.ndarray) -> np.ndarray:
    """Append the Luhn check digit to each row of an (n, k) digit matrix."""
    k = digits.shape[1]
    weights = np.where((np.arange(k)[::-1] % 2) == 0, 2, 1)
    prod = digits * weights
    total = (prod // 10 + prod % 10).sum(axis=1)
    check = (10 - total % 10) % 10
    return np.concatenate([digits, check[:, None]], axis=1)


# 16-digit brands: (issuer prefixes, share of cards)
CARD_BRANDS: dict[str, tuple[tuple[str, ...], float]] = {
    "visa": (("4",), 0.5),
    "mastercard": (("51", "52", "53", "54", "55", "2221", "2300", "2720"), 0.35),
    "discover": (("6011", "644", "65"), 0.1),
    "jcb": (("3528", "3545", "3589"), 0.05),
}
_CARD_PREFIXES = [p for prefixes, _ in CARD_BRANDS.values() for p in prefixes]
_CARD_SHARES = np.array([share / len(ps) for ps, share in CARD_BRANDS.values() for _ in ps])
_CARD_CUMULATIVE = np.cumsum(_CARD_SHARES / _CARD_SHARES.sum())
# each prefix as a row of 15 digits, and the columns it fixes
_CARD_PREFIX_DIGITS = np.array([[int(ch) for ch in p.ljust(15, "0")] for p in _CARD_PREFIXES])
_CARD_PREFIX_FIXED = np.arange(15) < np.array([len(p) for p in _CARD_PREFIXES])[:, None]


def credit_card_number(c: CategoryContext, n: int) -> list[str]:
    """16 digits: a brand's issuer prefix, random account digits, the Luhn check digit."""
    body = c.rng.integers(0, 10, size=(n, 15))
    which = np.minimum(np.searchsorted(_CARD_CUMULATIVE, c.rng.random(n)), len(_CARD_PREFIXES) - 1)
    body = np.where(_CARD_PREFIX_FIXED[which], _CARD_PREFIX_DIGITS[which], body)
    return decode_rows(_DIGITS[luhn_complete(body)])


def _gs1_complete(digits: np.ndarray) -> np.ndarray:
    """Append the GS1 (EAN, UPC, ISBN-13) mod-10 check digit: weight 3 on the digit beside it,
    then 1, 3, ... leftwards."""
    weights = np.where(np.arange(digits.shape[1])[::-1] % 2 == 0, 3, 1)
    check = (10 - _weighted(digits, weights) % 10) % 10
    return np.concatenate([digits, check[:, None]], axis=1)


def isbn(c: CategoryContext, n: int) -> list[str]:
    """ISBN-13: the 978 prefix (979-8 for one in ten), nine digits, the check digit."""
    body = c.rng.integers(0, 10, size=(n, 12))
    body[:, :3] = [9, 7, 8]
    late = c.rng.random(n) < 0.1
    body[late, 2], body[late, 3] = 9, 8
    return decode_rows(_DIGITS[_gs1_complete(body)])


# GS1 company prefixes of national organisations (not ISBN/ISSN 977-979, coupons, in-store 02x/2xx)
_GS1_PREFIXES = np.array(
    [*range(0, 20), *range(30, 40), *range(60, 140), *range(300, 380), *range(400, 441),
     *range(450, 460), *range(490, 500), *range(500, 510), *range(540, 550), *range(690, 700),
     *range(760, 770), *range(800, 840), *range(840, 850), *range(870, 880), *range(880, 881),
     *range(900, 920)],
    dtype=np.int64,
)  # fmt: skip


def ean13(c: CategoryContext, n: int) -> list[str]:
    """EAN-13: a GS1 prefix, nine digits, the check digit."""
    body = c.rng.integers(0, 10, size=(n, 12))
    prefix = _GS1_PREFIXES[c.rng.integers(0, len(_GS1_PREFIXES), size=n)]
    body[:, 0], body[:, 1], body[:, 2] = prefix // 100, prefix // 10 % 10, prefix % 10
    return decode_rows(_DIGITS[_gs1_complete(body)])


# UPC-A number systems of ordinary products (2 and 4 are in-store, 3 drugs, 5 and 9 coupons)
_UPC_SYSTEMS = np.array([0, 1, 6, 7, 8])


def upc(c: CategoryContext, n: int) -> list[str]:
    """UPC-A: a number system digit, ten digits, the check digit."""
    body = c.rng.integers(0, 10, size=(n, 11))
    body[:, 0] = _UPC_SYSTEMS[c.rng.integers(0, len(_UPC_SYSTEMS), size=n)]
    return decode_rows(_DIGITS[_gs1_complete(body)])


def swift(c: CategoryContext, n: int) -> list[str]:
    """BIC: 4 letters of the bank, the locale's country, a location (its second
    character not 0, which marks test codes) and, for half, a branch (XXX for the head office)."""
    own = locale_country(c.locale).code
    out = np.empty((n, 11), dtype=np.uint8)
    out[:, :4] = _LETTERS[c.rng.integers(0, 26, size=(n, 4))]
    out[:, 4], out[:, 5] = ord(own[0]), ord(own[1])
    out[:, 6] = _ALNUM[c.rng.integers(2, len(_ALNUM), size=n)]
    out[:, 7] = _ALNUM[c.rng.integers(1, len(_ALNUM), size=n)]
    out[:, 8:] = _ALNUM[c.rng.integers(0, len(_ALNUM), size=(n, 3))]
    head = c.rng.random(n) < 0.5
    out[head, 8:] = ord("X")
    short = c.rng.random(n) < 0.5
    codes = np.empty(n, dtype=object)
    codes[short] = decode_rows(out[short, :8])
    codes[~short] = decode_rows(out[~short])
    texts: list[str] = codes.tolist()
    return texts
