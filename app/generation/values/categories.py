"""Value categories a constraint rule can ask for (`{"path": "contact", "category": "email"}`).
Design notes: docs/generation.md."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.generation.caching import short_key_cache
from app.generation.model import Kind


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    description: str
    kinds: frozenset[Kind]  # field kinds the category can fill
    example: str


_STR = frozenset({Kind.STRING})
_INT = frozenset({Kind.INTEGER, Kind.NUMBER})
_NUM = frozenset({Kind.NUMBER})
_DATE = frozenset({Kind.DATE, Kind.STRING})
_DATETIME = frozenset({Kind.DATETIME, Kind.STRING})
_TIME = frozenset({Kind.TIME, Kind.STRING})

CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        # people
        Category("first_name", "A given name in the dataset's locale.", _STR, "Jane"),
        Category("last_name", "A family name in the dataset's locale.", _STR, "Doe"),
        Category("full_name", "Given and family name in the dataset's locale.", _STR, "Jane Doe"),
        Category("username", "A login name derived from the record's person.", _STR, "jane.doe42"),
        Category(
            "email",
            "A plausible e-mail address, derived from the record's name when present.",
            _STR,
            "jane.doe@example.com",
        ),
        Category("phone", "A telephone number in the locale's formats.", _STR, "+1-202-555-0143"),
        Category("job_title", "A job title in the dataset's locale.", _STR, "Civil engineer"),
        Category("age", "An adult's age in years (18-90).", _INT, "42"),
        Category("gender", "A gender label.", _STR, "female"),
        # places (fields of one record's address agree with each other)
        Category(
            "street_address",
            "Street, house number (and unit) in the locale's format.",
            _STR,
            "742 Evergreen Terrace",
        ),
        Category("street_name", "A street name without a number.", _STR, "Evergreen Terrace"),
        Category("building_number", "A house number.", _STR, "742"),
        Category("city", "A city name in the dataset's locale.", _STR, "Springfield"),
        Category("state", "A state, region or prefecture of the locale's country.", _STR, "Oregon"),
        Category("state_abbr", "A state abbreviation (two letters where the locale has them).", _STR, "OR"),
        Category(
            "postcode",
            "A postal code in the locale's format, matching the record's state where known.",
            _STR,
            "97403",
        ),
        Category(
            "country",
            "The locale's country name (any country when no locale applies).",
            _STR,
            "United States",
        ),
        Category("country_code", "An ISO 3166-1 alpha-2 country code.", _STR, "US"),
        Category("latitude", "A latitude in degrees (-90..90).", _NUM, "44.0521"),
        Category("longitude", "A longitude in degrees (-180..180).", _NUM, "-123.0868"),
        Category("address", "A one-line postal address.", _STR, "742 Evergreen Terrace, Springfield"),
        # business and money
        Category("company", "A company name in the dataset's locale.", _STR, "Acme Corp"),
        Category("catch_phrase", "A company slogan.", _STR, "Robust zero-defect paradigm"),
        Category("iban", "An IBAN with valid check digits.", _STR, "DE89370400440532013000"),
        Category("swift", "A SWIFT/BIC code.", _STR, "DEUTDEFF"),
        Category(
            "credit_card_number",
            "A 16-digit card number with a valid Luhn check digit.",
            _STR,
            "4539578763621486",
        ),
        Category("currency_code", "An ISO 4217 currency code.", _STR, "EUR"),
        Category("price", "A price with two decimals.", _NUM, "19.99"),
        Category("quantity", "A small positive count (1-100).", _INT, "3"),
        Category("isbn", "An ISBN-13 without separators.", _STR, "9780306406157"),
        Category("ean13", "An EAN-13 barcode number.", _STR, "4006381333931"),
        # internet
        Category("url", "An https URL.", _STR, "https://www.example.com/path/page.html"),
        Category("domain_name", "An internet domain name.", _STR, "example.com"),
        Category("ipv4", "An IPv4 address.", _STR, "192.0.2.17"),
        Category("ipv6", "An IPv6 address.", _STR, "2001:db8::8a2e:370:7334"),
        Category("mac_address", "A MAC address (colon-separated hex).", _STR, "3c:22:fb:01:9a:4e"),
        Category("user_agent", "A browser user-agent string.", _STR, "Mozilla/5.0 (X11; Linux x86_64) ..."),
        Category("slug", "A URL slug of lower-case words.", _STR, "quick-brown-fox"),
        Category("password", "A random password of letters, digits and symbols.", _STR, "pX7#kq92!Lm"),
        Category("uuid", "A random RFC 4122 version-4 UUID.", _STR, "3f2b9c1e-8d4a-4e0b-9a57-2c1d5e6f7a8b"),
        # time
        Category("date", "A calendar date (ISO 8601).", _DATE, "2024-03-01"),
        Category("date_of_birth", "A birth date of an adult (18-90 years ago).", _DATE, "1984-07-12"),
        Category(
            "datetime", "A timestamp with time zone (ISO 8601 / RFC 3339).", _DATETIME, "2024-03-01T12:34:56Z"
        ),
        Category("time", "A time of day.", _TIME, "12:34:56Z"),
        Category("year", "A year between 1950 and 2030.", _INT, "1999"),
        # text
        Category("word", "A lorem-ipsum word in the locale's language.", _STR, "dolor"),
        Category("sentence", "A lorem-ipsum sentence.", _STR, "Dolor sit amet consectetur."),
        Category("paragraph", "A lorem-ipsum paragraph.", _STR, "Dolor sit amet ... elit."),
        # misc
        Category("color_name", "A colour name.", _STR, "LightYellow"),
        Category("hex_color", "A #rrggbb colour.", _STR, "#1a2b3c"),
        Category("file_name", "A file name with an extension.", _STR, "report.pdf"),
        Category("file_extension", "A file extension.", _STR, "pdf"),
        Category("mime_type", "A MIME type.", _STR, "application/json"),
        Category("language_code", "An ISO 639 language code.", _STR, "de"),
        Category("license_plate", "A vehicle licence plate in the locale's format.", _STR, "ABC-1234"),
    )
}


# name-based inference: first match wins; names are normalised to lower snake case
_NAME_RULES: list[tuple[str, str]] = [
    (r"^(e_?mail|email_address|mail|.*_email|email_.*)$", "email"),
    (r"^(first_?name|given_?name|fname|forename|vorname|prenom)$", "first_name"),
    (r"^(last_?name|family_?name|surname|lname|nachname|nom)$", "last_name"),
    (r"^(full_?name|name|customer_name|person_name|contact_name|display_name|author)$", "full_name"),
    (r"^(user_?name|login|handle|screen_name|nickname)$", "username"),
    (r"^(phone|phone_?number|tel|telephone|mobile|cell|fax|.*_phone)$", "phone"),
    (r"^(job|job_?title|title_job|occupation|position|role_title)$", "job_title"),
    (r"^(street|street_?address|address_?line_?1|address1|line1|addr)$", "street_address"),
    (r"^(street_?name)$", "street_name"),
    (r"^(house_?number|building_?number|street_?number)$", "building_number"),
    (r"^(city|town|locality|municipality|ort|ville)$", "city"),
    (r"^(state|province|region|county|prefecture)$", "state"),
    (r"^(state_?(code|abbr))$", "state_abbr"),
    (r"^(zip|zip_?code|post_?code|postal_?code|plz|postcode)$", "postcode"),
    (r"^(country_?code|country_?iso|iso_?country)$", "country_code"),
    (r"^(country|nation|land|pays)$", "country"),
    (r"^(lat|latitude)$", "latitude"),
    (r"^(lng|lon|long|longitude)$", "longitude"),
    (r"^(address|full_?address|postal_?address)$", "address"),
    (
        r"^(company|company_?name|organi[sz]ation|employer|business_?name|vendor|supplier|manufacturer)$",
        "company",
    ),
    (r"^(iban|bank_?account)$", "iban"),
    (r"^(bic|swift|swift_?code)$", "swift"),
    (r"^(credit_?card|card_?number|cc_?number|pan)$", "credit_card_number"),
    (r"^(currency|currency_?code)$", "currency_code"),
    (r"^(isbn|isbn13)$", "isbn"),
    (r"^(ean|ean13|barcode|gtin)$", "ean13"),
    (r"^(url|uri|website|homepage|link|href|.*_url)$", "url"),
    (r"^(domain|domain_?name|host|hostname)$", "domain_name"),
    (r"^(ip|ipv4|ip_?address|remote_?addr|client_?ip)$", "ipv4"),
    (r"^(ipv6)$", "ipv6"),
    (r"^(mac|mac_?address)$", "mac_address"),
    (r"^(user_?agent|ua)$", "user_agent"),
    (r"^(slug)$", "slug"),
    (r"^(password|passwd|pwd|secret)$", "password"),
    (r"^(uuid|guid)$", "uuid"),
    (r"^(birth_?date|date_?of_?birth|dob|birthday)$", "date_of_birth"),
    (
        r"^(description|comment|comments|notes|note|summary|body|text|message|bio|details|remarks)$",
        "sentence",
    ),
    (r"^(colou?r|colou?r_?name)$", "color_name"),
    (r"^(hex_?colou?r|colou?r_?hex|rgb)$", "hex_color"),
    (r"^(file_?name|filename|attachment)$", "file_name"),
    (r"^(extension|file_?extension|ext)$", "file_extension"),
    (r"^(mime|mime_?type|content_?type|media_?type)$", "mime_type"),
    (r"^(lang|language|language_?code|locale)$", "language_code"),
    (r"^(license_?plate|licence_?plate|plate)$", "license_plate"),
    (r"^(gender|sex)$", "gender"),
    (r"^(catch_?phrase|slogan|tagline)$", "catch_phrase"),
    (r"^(word|keyword|tag)$", "word"),
    (r"^(sentence|title|subject|headline|label|caption)$", "sentence"),
    (r"^(paragraph|content|article|abstract)$", "paragraph"),
]
_NUMERIC_NAME_RULES: list[tuple[str, str]] = [
    (r"^(age|age_years)$", "age"),
    (r"^(lat|latitude)$", "latitude"),
    (r"^(lng|lon|long|longitude)$", "longitude"),
    (r"^(qty|quantity|count|num_items|units)$", "quantity"),
    (r"^(.*price.*|amount|.*_amount|total|subtotal|cost|fee|balance|salary|tax)$", "price"),
    (r"^(year|.*_year|year_.*)$", "year"),
]
_TEMPORAL_NAME_RULES: list[tuple[str, str]] = [
    (r"^(birth_?date|date_?of_?birth|dob|birthday)$", "date_of_birth"),
]
_FORMAT_CATEGORY = {
    "email": "email",
    "idn-email": "email",
    "uri": "url",
    "iri": "url",
    "uuid": "uuid",
    "hostname": "domain_name",
    "idn-hostname": "domain_name",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "xsd:anyURI": "url",
}

# formats whose values a name-inferred category (a sentence, a city) still satisfies
_NAME_FRIENDLY_FORMATS = {
    "xsd:normalizedString",
    "xsd:token",
    "date",
    "date-time",
    "xsd:date",
    "xsd:dateTime",
}

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_name(name: str) -> str:
    """`firstName` / `First-Name` / `@first_name` -> `first_name`."""
    name = name.lstrip("@$")
    return _CAMEL.sub("_", name).replace("-", "_").replace(" ", "_").lower()


@short_key_cache(maxsize=8192)
def infer_category(name: str, kind: Kind, fmt: str | None) -> str | None:
    """The category a field's name (and format) suggests, or None (cached: large schemas ask
    for the same names thousands of times)."""
    if fmt and fmt in _FORMAT_CATEGORY:
        return _FORMAT_CATEGORY[fmt]
    if fmt and fmt not in _NAME_FRIENDLY_FORMATS:
        return None  # a QName or a gYear named `message` must stay a QName / gYear
    key = normalise_name(name)
    if not key:
        return None
    rules: list[tuple[str, str]]
    if kind == Kind.STRING:
        rules = _NAME_RULES
    elif kind in (Kind.INTEGER, Kind.NUMBER):
        rules = _NUMERIC_NAME_RULES
    elif kind in (Kind.DATE, Kind.DATETIME):
        rules = _TEMPORAL_NAME_RULES
    else:
        return None
    for pattern, category in rules:
        if re.match(pattern, key):
            cat = CATEGORIES[category]
            if kind in cat.kinds:
                return category
    return None
