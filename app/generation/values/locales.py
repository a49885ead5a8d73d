"""The locales the engine accepts and the country each one stands for: name, ISO codes, currency and
telephone calling code, so that one record's address, phone and currency name one country.
Design notes: docs/generation.md (locales)."""

from __future__ import annotations

from dataclasses import dataclass

from app.generation.errors import ParamsError


@dataclass(frozen=True, slots=True)
class Country:
    code: str  # ISO 3166-1 alpha-2
    name: str  # English short name
    alpha3: str
    currency: str  # ISO 4217
    calling_code: str  # ITU-T E.164 country code, without "+"
    national_digits: int  # digits of a national (significant) number


_COUNTRIES = [
    Country("US", "United States", "USA", "USD", "1", 10),
    Country("CA", "Canada", "CAN", "CAD", "1", 10),
    Country("GB", "United Kingdom", "GBR", "GBP", "44", 10),
    Country("IE", "Ireland", "IRL", "EUR", "353", 9),
    Country("AU", "Australia", "AUS", "AUD", "61", 9),
    Country("NZ", "New Zealand", "NZL", "NZD", "64", 9),
    Country("IN", "India", "IND", "INR", "91", 10),
    Country("BD", "Bangladesh", "BGD", "BDT", "880", 10),
    Country("MY", "Malaysia", "MYS", "MYR", "60", 9),
    Country("PH", "Philippines", "PHL", "PHP", "63", 10),
    Country("NP", "Nepal", "NPL", "NPR", "977", 10),
    Country("ZA", "South Africa", "ZAF", "ZAR", "27", 9),
    Country("DE", "Germany", "DEU", "EUR", "49", 10),
    Country("AT", "Austria", "AUT", "EUR", "43", 10),
    Country("CH", "Switzerland", "CHE", "CHF", "41", 9),
    Country("FR", "France", "FRA", "EUR", "33", 9),
    Country("BE", "Belgium", "BEL", "EUR", "32", 9),
    Country("NL", "Netherlands", "NLD", "EUR", "31", 9),
    Country("IT", "Italy", "ITA", "EUR", "39", 10),
    Country("ES", "Spain", "ESP", "EUR", "34", 9),
    Country("PT", "Portugal", "PRT", "EUR", "351", 9),
    Country("GR", "Greece", "GRC", "EUR", "30", 10),
    Country("FI", "Finland", "FIN", "EUR", "358", 9),
    Country("SE", "Sweden", "SWE", "SEK", "46", 9),
    Country("NO", "Norway", "NOR", "NOK", "47", 8),
    Country("DK", "Denmark", "DNK", "DKK", "45", 8),
    Country("PL", "Poland", "POL", "PLN", "48", 9),
    Country("CZ", "Czechia", "CZE", "CZK", "420", 9),
    Country("SK", "Slovakia", "SVK", "EUR", "421", 9),
    Country("SI", "Slovenia", "SVN", "EUR", "386", 8),
    Country("HR", "Croatia", "HRV", "EUR", "385", 9),
    Country("HU", "Hungary", "HUN", "HUF", "36", 9),
    Country("RO", "Romania", "ROU", "RON", "40", 9),
    Country("MK", "North Macedonia", "MKD", "MKD", "389", 8),
    Country("UA", "Ukraine", "UKR", "UAH", "380", 9),
    Country("RU", "Russia", "RUS", "RUB", "7", 10),
    Country("GE", "Georgia", "GEO", "GEL", "995", 9),
    Country("AM", "Armenia", "ARM", "AMD", "374", 8),
    Country("AZ", "Azerbaijan", "AZE", "AZN", "994", 9),
    Country("IL", "Israel", "ISR", "ILS", "972", 9),
    Country("IR", "Iran", "IRN", "IRR", "98", 10),
    Country("DZ", "Algeria", "DZA", "DZD", "213", 9),
    Country("MX", "Mexico", "MEX", "MXN", "52", 10),
    Country("AR", "Argentina", "ARG", "ARS", "54", 10),
    Country("CL", "Chile", "CHL", "CLP", "56", 9),
    Country("CO", "Colombia", "COL", "COP", "57", 10),
    Country("BR", "Brazil", "BRA", "BRL", "55", 11),
    Country("JP", "Japan", "JPN", "JPY", "81", 10),
    Country("KR", "South Korea", "KOR", "KRW", "82", 10),
    Country("CN", "China", "CHN", "CNY", "86", 11),
    Country("TW", "Taiwan", "TWN", "TWD", "886", 9),
    Country("TH", "Thailand", "THA", "THB", "66", 9),
    Country("VN", "Vietnam", "VNM", "VND", "84", 9),
    Country("ID", "Indonesia", "IDN", "IDR", "62", 10),
]
COUNTRIES: dict[str, Country] = {c.code: c for c in _COUNTRIES}
# locales whose name does not end in their country's code
_LOCALE_COUNTRY = {"de": "DE", "es": "ES", "th": "TH", "en_MS": "MY", "fil_PH": "PH", "tl_PH": "PH"}
_SAMPLE_LOCALES = "en_US, en_GB, de_DE, fr_FR, es_ES, it_IT, nl_NL, pl_PL, pt_BR, ja_JP or zh_CN"


def _country_code(locale: str) -> str | None:
    return _LOCALE_COUNTRY.get(locale) or (locale.split("_")[1] if "_" in locale else None)


# Faker locales with address data of their own, for a country of COUNTRIES (a locale without its
# own address provider falls back to en_US addresses, which would put Texas into a Bulgarian
# record); tests/generation/test_agreement.py recomputes this list from the pinned Faker
SUPPORTED_LOCALES: tuple[str, ...] = (
    "ar_DZ", "az_AZ", "bn_BD", "cs_CZ", "da_DK", "de", "de_AT", "de_CH", "de_DE", "el_GR", "en_AU",
    "en_BD", "en_CA", "en_GB", "en_IE", "en_IN", "en_MS", "en_NZ", "en_PH", "en_US", "es", "es_AR",
    "es_CL", "es_CO", "es_ES", "es_MX", "fa_IR", "fi_FI", "fil_PH", "fr_CA", "fr_CH", "fr_DZ", "fr_FR",
    "he_IL", "hi_IN", "hr_HR", "hu_HU", "hy_AM", "id_ID", "it_IT", "ja_JP", "ka_GE", "ko_KR", "mk_MK",
    "mr_IN", "ne_NP", "nl_BE", "nl_NL", "no_NO", "pl_PL", "pt_BR", "pt_PT", "ro_RO", "ru_RU", "sk_SK",
    "sl_SI", "sv_SE", "ta_IN", "th", "th_TH", "tl_PH", "uk_UA", "vi_VN", "zh_CN", "zh_TW", "zu_ZA",
)  # fmt: skip


def own_address_locales() -> tuple[str, ...]:
    """SUPPORTED_LOCALES as computed from Faker (slow: builds every locale's Faker)."""
    from faker import Faker
    from faker.config import AVAILABLE_LOCALES

    found = []
    for loc in AVAILABLE_LOCALES:
        if _country_code(loc) not in COUNTRIES:
            continue
        modules = [p.__class__.__module__ for p in Faker(loc).get_providers()]
        own = next((m for m in modules if ".address" in m), "").rsplit(".", 1)[-1]
        if own == loc or (own.split("_")[0] == loc and _country_code(loc) == own.split("_")[-1]):
            found.append(loc)
    return tuple(found)


def normalise_locale(locale: str | None) -> str:
    """`en-US` / `en_us` / `de` -> `en_US` / `de_DE`; others -> ParamsError with a sentence."""
    if not locale:
        return "en_US"
    if not isinstance(locale, str):
        raise ParamsError("params.locale must be a string such as en_US or de_DE.", field="params.locale")
    raw = locale.strip().replace("-", "_")
    parts = raw.split("_")
    cand = parts[0].lower() + ("_" + parts[1].upper() if len(parts) > 1 else "")
    supported = SUPPORTED_LOCALES
    if cand in supported:
        return cand
    if len(parts) == 1:
        for loc in supported:
            if loc.split("_")[0] == cand and loc.split("_")[-1] == cand.upper():
                return loc  # `de` -> de_DE, `fr` -> fr_FR
        for loc in supported:
            if loc.split("_")[0] == cand:
                return loc
    from faker.config import AVAILABLE_LOCALES  # Faker only for the error's wording

    known = cand in AVAILABLE_LOCALES
    raise ParamsError(
        f"locale {locale[:40]!r} is not supported"
        + (" (its Faker data has no addresses of its own)" if known else "")
        + f"; use one such as {_SAMPLE_LOCALES}.",
        field="params.locale",
    )


def normalise_locales(raw: object) -> tuple[str, ...]:
    """`params.locales`: a non-empty list of locales, each record drawing one (repeats weigh)."""
    if not isinstance(raw, list) or not raw or len(raw) > 50:
        raise ParamsError(
            'params.locales must be a list of 1 to 50 locales, such as ["en_US", "de_DE"].', field="params.locales"
        )
    if not all(isinstance(x, str) for x in raw):
        raise ParamsError('params.locales must list locale names, such as "en_US".', field="params.locales")
    try:
        return tuple(normalise_locale(x) for x in raw)
    except ParamsError as exc:
        exc.field = "params.locales"
        raise


def locale_country(locale: str) -> Country:
    code = _country_code(locale)
    return COUNTRIES[code] if code in COUNTRIES else COUNTRIES["US"]
