"""Value categories a constraint rule can ask for (`{"path": "contact", "category": "email"}`).
Design notes: docs/generation.md."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.generation.caching import short_key_cache
from app.generation.model import FieldTree, Kind, Node
from app.generation.values import semantics
from app.generation.values.category_values import STRING_GENERATORS, CategoryContext


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
        Category(
            "iban",
            "An IBAN with valid check digits in its country's BBAN shape: the locale's country where it "
            "uses IBAN, else one of 28 IBAN countries.",
            _STR,
            "DE89370400440532013000",
        ),
        Category("swift", "A SWIFT/BIC code of the locale's country.", _STR, "DEUTDEFF"),
        Category(
            "credit_card_number",
            "A 16-digit Visa, Mastercard, Discover or JCB number with a valid Luhn check digit.",
            _STR,
            "4539578763621486",
        ),
        Category("currency_code", "An ISO 4217 currency code.", _STR, "EUR"),
        Category("price", "A price with two decimals.", _NUM, "19.99"),
        Category("quantity", "A small positive count (1-100).", _INT, "3"),
        Category("isbn", "An ISBN-13 (978 or 979-8) without separators.", _STR, "9780306406157"),
        Category("ean13", "An EAN-13 barcode number with a GS1 country prefix.", _STR, "4006381333931"),
        Category("upc", "A UPC-A product code (12 digits).", _STR, "036000291452"),
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
        # field semantics: work, things, codes
        Category("skill", "A professional skill.", _STR, "Project management"),
        Category("hobby", "A pastime.", _STR, "Cycling"),
        Category("department", "A department of an organisation.", _STR, "Human Resources"),
        Category("industry", "An industry or business sector.", _STR, "Logistics"),
        Category(
            "product_name", "A product name: adjective, material and product.", _STR, "Ergonomic Steel Chair"
        ),
        Category("sku", "A stock-keeping unit code.", _STR, "KTR-40213"),
        Category("category", "A product or content category.", _STR, "Home & Garden"),
        Category("tag", "A short lower-case tag.", _STR, "featured"),
        Category("label", "A short name of a thing (project, team, service).", _STR, "Silver Harbor"),
        Category("title", "A short headline.", _STR, "Adaptive intermediate middleware"),
        Category("name_prefix", "A person's title (Mr., Ms., Dr.) in the locale's language.", _STR, "Dr."),
        Category("status", "A status word.", _STR, "pending"),
        Category("role", "An access role.", _STR, "editor"),
        Category("priority", "A priority or severity word.", _STR, "high"),
        Category("environment", "A deployment environment.", _STR, "staging"),
        Category("http_method", "An HTTP method.", _STR, "POST"),
        Category("unit", "A unit of measure.", _STR, "kg"),
        Category("license", "An SPDX licence identifier.", _STR, "Apache-2.0"),
        Category("git_branch", "A git branch name.", _STR, "feature/login-page"),
        Category("shell_command", "A build or shell command.", _STR, "npm test"),
        Category("container_image", "A container image reference.", _STR, "postgres:16"),
        Category("country_code3", "An ISO 3166-1 alpha-3 country code.", _STR, "USA"),
        Category("language_name", "A language's English name.", _STR, "German"),
        Category("locale", "A BCP 47 language tag with region.", _STR, "de-DE"),
        Category("timezone", "An IANA time zone name.", _STR, "Europe/Berlin"),
        Category("file_path", "An absolute POSIX file path.", _STR, "/story/hundred/reach.js"),
        Category("directory", "An absolute POSIX directory path.", _STR, "/var/reports"),
        Category("semver", "A semantic version (major.minor.patch).", _STR, "2.14.3"),
        Category("md5", "An MD5 digest: 32 lower-case hex digits.", _STR, "9e107d9d372bb6826bd81d3542a419d6"),
        Category(
            "sha1",
            "A SHA-1 digest (a git commit): 40 hex digits.",
            _STR,
            "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
        ),
        Category(
            "sha256", "A SHA-256 digest: 64 hex digits.", _STR, "e3b0c44298fc1c149afbf4c8996fb924...852b855"
        ),
        Category(
            "sha512",
            "A SHA-512 digest: 128 hex digits.",
            _STR,
            "cf83e1357eefb8bdf1542850d66d8007...a538327af927da3e",
        ),
        Category(
            "token",
            "An opaque token or API key: 32 letters and digits.",
            _STR,
            "r9WwHeAaA28FyrSw7xqTlxsNZWrZahjG",
        ),
        Category("json_pointer", "A JSON Pointer (RFC 6901).", _STR, "/items/0"),
        Category("cvv", "A card security code (3 digits).", _STR, "372"),
        Category("card_expiry", "A card expiry month (MM/YY).", _STR, "08/29"),
        Category("expression", "A short expression or condition.", _STR, "datum.value > 10"),
        Category("identifier", "A field or variable name.", _STR, "totalSales"),
        Category("css_style", "A CSS declaration.", _STR, "margin: 0 auto"),
        Category("event_handler", "A JavaScript event handler.", _STR, "toggle(this)"),
        Category("charset", "A character set name.", _STR, "UTF-8"),
        Category("content_encoding", "A content transfer encoding.", _STR, "base64"),
        Category("cron", "A cron schedule.", _STR, "30 2 * * 1-5"),
        Category("glob", "A file glob pattern.", _STR, "src/**/*.py"),
        Category("duration_text", "A duration in words.", _STR, "30 days"),
        Category("github_action", "A GitHub Action reference.", _STR, "actions/checkout@v4"),
        Category("runner", "A CI runner label.", _STR, "ubuntu-latest"),
        Category("shell_name", "A shell name.", _STR, "bash"),
        Category("name_suffix", "A name suffix.", _STR, "Jr."),
        Category("vehicle_make", "A vehicle make.", _STR, "Toyota"),
        Category("vehicle_model", "A vehicle model.", _STR, "Corolla"),
        Category("package_name", "A software package name.", _STR, "requests"),
        Category("cli_arguments", "Command-line arguments.", _STR, "--no-cache"),
        Category("data_format", "A data or file format name.", _STR, "csv"),
        Category("xpath", "An XPath expression.", _STR, "//customer/name"),
        Category("algorithm", "A cryptographic algorithm name.", _STR, "AES-256-GCM"),
        Category("platform", "An operating system or platform.", _STR, "linux/amd64"),
        Category("connection_string", "A database connection URL.", _STR, "postgresql://app@db:5432/app"),
    )
}


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_name(name: str) -> str:
    """`firstName` / `First-Name` / `@first_name` -> `first_name`."""
    name = name.lstrip("@$")
    return _CAMEL.sub("_", name).replace("-", "_").replace(" ", "_").lower()


_SINGULAR = (
    (re.compile(r"ies$"), "y"),
    (re.compile(r"(ss|x|ch|sh)es$"), r"\1"),
    (re.compile(r"(?<!s)s$"), ""),
)


def singular(name: str) -> str:
    """`skills` -> `skill`, `categories` -> `category`, `addresses` -> `address` (English plurals)."""
    for pattern, repl in _SINGULAR:
        if pattern.search(name):
            return pattern.sub(repl, name)
    return name


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _spelled_out(pattern: str) -> frozenset[str] | None:
    """Every name `pattern` matches in full, when it is alternated words with optional characters
    (`first_?name|fname`, about three quarters of the table); None for any other pattern."""
    names: set[str] = set()
    for branch in pattern.split("|"):
        if branch.startswith("?") or "??" in branch:
            return None  # not a plain optional character (`??` is a lazy quantifier)
        spellings = [""]
        for i, ch in enumerate(branch):
            if ch == "?":
                continue
            if ch not in _WORD_CHARS:
                return None
            with_ch = [s + ch for s in spellings]
            spellings = with_ch + spellings if branch[i + 1 : i + 2] == "?" else with_ch
        names.update(spellings)
    return frozenset(names)


class NamePattern:
    """A name-table pattern, matched in full. Compiling the table's ~190 patterns cost 10-50 ms
    on every process start; now a pattern that only spells out words is a set lookup, and any
    other is compiled the first time it is tried. Answers exactly as `re.fullmatch` would."""

    __slots__ = ("_names", "_regex", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._names = _spelled_out(source)
        self._regex: re.Pattern[str] | None = None

    def fullmatch(self, name: str) -> bool:
        if self._names is not None:
            return name in self._names
        if self._regex is None:
            self._regex = re.compile(self.source)
        return self._regex.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class _Rule:
    name: NamePattern
    categories: tuple[str, ...]
    owner: NamePattern | None
    sibling: NamePattern | None


_PATTERNS: dict[str, NamePattern] = {}


def _pattern(source: str) -> NamePattern:
    """One NamePattern per distinct source (the context patterns recur across rules)."""
    found = _PATTERNS.get(source)
    if found is None:
        found = _PATTERNS[source] = NamePattern(source)
    return found


def _rules(table: tuple[semantics.NameRule, ...]) -> tuple[_Rule, ...]:
    return tuple(
        _Rule(
            _pattern(r.name),
            r.categories,
            _pattern(r.owner) if r.owner else None,
            _pattern(r.sibling) if r.sibling else None,
        )
        for r in table
    )


_NUMERIC = _rules(semantics.NUMERIC_TABLE)
_TEMPORAL = _rules(semantics.TEMPORAL_TABLE)
_TABLES = {
    Kind.STRING: _rules(semantics.NAME_TABLE),
    Kind.INTEGER: _NUMERIC,
    Kind.NUMBER: _NUMERIC,
    Kind.DATE: _TEMPORAL,
    Kind.DATETIME: _TEMPORAL,
}
_SIBLING_PATTERNS = tuple(
    {r.sibling.source: r.sibling for table in _TABLES.values() for r in table if r.sibling}.values()
)
_FIT_SAMPLE = 32
_FIT_SHARE = 0.9  # a category fills a field when this share of its values meets the facets


@short_key_cache(maxsize=4096)
def category_fits(category: str, min_length: int, max_length: int | None, patterns: str = "") -> bool:
    """Whether a string category's values meet a field's length and pattern facets, on a seeded
    sample. `patterns`: each pattern prefixed by "^" when it must match whole (XSD) or "~" when
    a match anywhere will do (JSON Schema), joined by NUL (one string, so the cache's key-size
    bound sees the patterns' length)."""
    gen = STRING_GENERATORS.get(category)
    if gen is None:
        return True  # filled by a format or temporal generator, which know the facets
    rng = np.random.default_rng(0)
    values = gen(
        CategoryContext(rng, "en_US", lambda _g, size: rng.integers(0, size, size=_FIT_SAMPLE)), _FIT_SAMPLE
    )
    good = [min_length <= len(v) and (max_length is None or len(v) <= max_length) for v in values]
    for p in patterns.split("\0") if patterns else ():
        anchored, body = p.startswith("^"), p[1:]
        try:
            rx = re.compile(body)
        except re.error:
            return False
        match = rx.fullmatch if anchored else rx.search
        good = [g and match(v) is not None for g, v in zip(good, values, strict=True)]
    return sum(good) >= _FIT_SHARE * len(values)


def _best_fit(candidates: list[str], min_length: int, max_length: int | None, patterns: str) -> str | None:
    """The first candidate when it fits; else, of those that fit, the one with the longest values:
    the facets say which form is meant (a country in at most 3 characters is an alpha-3 code)."""
    fitting = [c for c in candidates if category_fits(c, min_length, max_length, patterns)]
    if not fitting or fitting[0] == candidates[0]:
        return fitting[0] if fitting else None
    return max(fitting, key=_typical_length)


def _typical_length(category: str) -> int:
    gen = STRING_GENERATORS.get(category)
    if gen is None:
        return 0
    rng = np.random.default_rng(0)
    values = gen(CategoryContext(rng, "en_US", lambda _g, size: rng.integers(0, size, size=8)), 8)
    return sorted(map(len, values))[len(values) // 2]


@short_key_cache(maxsize=16384)
def infer_field_category(
    name: str,
    kind: Kind,
    fmt: str | None,
    owner: str = "",
    siblings: tuple[str, ...] = (),
    min_length: int = 0,
    max_length: int | None = None,
    patterns: str = "",
) -> str | None:
    """The category a field's name suggests in its context (the owner: its parent object's
    singular name; the names of its siblings), and that its facets allow; None for generic values.
    Patterns as in `category_fits`. The rules are data: `semantics.py`."""
    if fmt and fmt in semantics.FORMAT_CATEGORY:
        cat = semantics.FORMAT_CATEGORY[fmt]
        if kind in CATEGORIES[cat].kinds and category_fits(cat, min_length, max_length, patterns):
            return cat
        return None
    if fmt and fmt not in semantics.NAME_FRIENDLY_FORMATS:
        return None  # a QName or a gYear named `message` must stay a QName / gYear
    key = normalise_name(name)
    table = _TABLES.get(kind)
    if not key or table is None:
        return None
    tokens = key.split("_")
    for i in range(len(tokens)):
        leaf, head = "_".join(tokens[i:]), "_".join(tokens[:i])
        if not leaf:
            continue
        found = _match(table, leaf, head, owner, siblings, kind)
        if found is None and singular(leaf) != leaf:  # `branches` (a list of them): a branch
            found = _match(table, singular(leaf), head, owner, siblings, kind)
        if found is not None:
            return _best_fit(found, min_length, max_length, patterns) if kind is Kind.STRING else found[0]
    return None


def _match(
    table: tuple[_Rule, ...], leaf: str, head: str, owner: str, siblings: tuple[str, ...], kind: Kind
) -> list[str] | None:
    """The candidates of the first rule matching `leaf` in its context, if any. `billing_city`:
    `city` owned by `billing`; a stripped head names the owner itself, so sibling evidence (an
    e-mail beside `project_name`) is not read for it."""
    own = head or owner
    for rule in table:
        if not rule.name.fullmatch(leaf):
            continue
        if rule.owner is not None and (not own or not rule.owner.fullmatch(own)):
            continue
        if rule.sibling is not None and (head or not any(rule.sibling.fullmatch(s) for s in siblings)):
            continue
        candidates = [c for c in rule.categories if kind in CATEGORIES[c].kinds]
        if candidates:
            return candidates
    return None


def infer_category(name: str, kind: Kind, fmt: str | None) -> str | None:
    """The category a field's name alone suggests (no context, no facets)."""
    return infer_field_category(name, kind, fmt)


_DATE_FORMATS = {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}


class FieldSemantics:
    """Inference over one field tree: each leaf's owner and siblings read from the tree (object
    paths -> child names), so the compiler and `/repr` infer the same category."""

    def __init__(self, tree: FieldTree) -> None:
        root = tree.root_name if not tree.root_name.startswith("#") else ""
        self.root_owner = singular(normalise_name(root.rsplit("/", 1)[-1]))
        self.children: dict[str, set[str]] = {}
        self._telling_cache: dict[str, tuple[str, ...]] = {}
        self._memo: dict[tuple[Node, Kind | None], str | None] = {}
        for top in (tree.root, *tree.definitions.values()):
            for node in top.walk():
                if node.kind is Kind.OBJECT:
                    names = self.children.setdefault(node.path, set())
                    names.update(normalise_name(c.name) for c in node.children if c.name)

    def _telling(self, path: str) -> tuple[str, ...]:
        """The child names of the object at `path` that some sibling rule reads (few, even in
        an object of hundreds of fields: the inference's cache key stays short)."""
        found = self._telling_cache.get(path)
        if found is None:
            names = self.children.get(path, ())
            found = tuple(sorted(n for n in names if any(p.fullmatch(n) for p in _SIBLING_PATTERNS)))
            self._telling_cache[path] = found
        return found

    def category(self, node: Node, kind: Kind | None = None) -> str | None:
        """The inferred category of a scalar leaf (None for enum/const leaves: the schema lists its values)."""
        memo_key = (node, kind)
        if memo_key in self._memo:  # recursion points compile the same nodes many times
            return self._memo[memo_key]
        found = self._infer(node, kind)
        self._memo[memo_key] = found
        return found

    def _infer(self, node: Node, kind: Kind | None) -> str | None:
        if node.enum is not None or node.has_const or (node.xml is not None and node.xml.fixed is not None):
            return None
        if kind is None:
            kind = _DATE_FORMATS.get(node.format or "", node.kind) if node.kind is Kind.STRING else node.kind
        # XSD names may carry a namespace prefix (`saml:Issuer`): the local name says what it is
        parts = [p.rsplit(":", 1)[-1] for p in node.path.split(".")] if node.path else []
        name = node.name.rsplit(":", 1)[-1]
        if name == "$" and parts:  # XSD simple content: the element's own name
            parts = parts[:-1]
            name = parts[-1] if parts else ""
        elif not name and parts:  # an option of a choice: the choice's name
            name = parts[-1]
        parent = parts[:-1]
        owner = singular(normalise_name(parent[-1])) if parent else self.root_owner
        own_key = normalise_name(name)
        siblings = tuple(s for s in self._telling(".".join(parts[:-1])) if s != own_key)
        anchored = node.pattern_anchored
        patterns = "\0".join(("^" if anchored else "~") + p for p in node.patterns)
        return infer_field_category(
            name, kind, node.format, owner, siblings, node.min_length or 0, node.max_length, patterns
        )
