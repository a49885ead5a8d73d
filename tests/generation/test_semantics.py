"""Field semantics (issue 17, item 3): a field's name and context (its parent object, its
siblings) choose its value category; the field's own facets (length, pattern, format, enum)
always win, and every record validates (jsonschema with format checking, xmlschema). The
inferred category of each leaf is shown by `/repr`."""

from __future__ import annotations

import io
import json
import re
import zoneinfo
from typing import Any

import xmlschema
from faker.providers.address import Provider as AddressProvider
from faker.providers.currency import Provider as CurrencyProvider

from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema
from app.generation.values import vocab, wordlists
from tests.api_client import Api
from tests.generation.validated import validated_records

N = 300
ALPHA2 = set(AddressProvider.alpha_2_country_codes)
ALPHA3 = set(AddressProvider.alpha_3_country_codes)
CURRENCIES = {code for code, _ in CurrencyProvider.currencies}
FIRST_NAMES = set(vocab.person_pool("en_US")["first"].tolist())
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def _hex(n: int) -> re.Pattern[str]:
    return re.compile(rf"^[0-9a-f]{{{n}}}$")


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


S: dict[str, Any] = {"type": "string"}
EMPLOYEE = _obj(
    {
        "name": S,
        "email": {"type": "string", "format": "email"},
        "department": S,
        "job_title": S,
        "skills": {"type": "array", "minItems": 1, "items": _obj({"name": S, "level": {"type": "integer"}})},
        "hobbies": {"type": "array", "minItems": 1, "items": S},
        "card": _obj({"holder": S, "number": S}),
        "employer": _obj({"name": S, "country": S}),
        "country": {"type": "string", "maxLength": 2},
        "nationality": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "language": {"type": "string", "maxLength": 2},
        "timezone": S,
        "salary": _obj({"amount": {"type": "number"}, "code": S}),
        "bonus_amount": {"type": "number"},
        "currency": S,
    }
)
ARTEFACT = _obj(
    {
        "product": _obj({"name": S, "sku": S, "category": S}),
        "title": S,
        "description": {"type": "string", "maxLength": 200},
        "comment": S,
        "tags": {"type": "array", "minItems": 1, "items": S},
        "colour": S,
        "status": S,
        "version": S,
        "commit_sha": S,
        "checksum": {"type": "string", "maxLength": 32},
        "sha256": S,
        "api_token": S,
        "file_path": S,
        "pointer": {"type": "string", "format": "json-pointer"},
        "homepage_url": S,
        "created_by": S,
    }
)


def _column(records: list[dict[str, Any]], *path: str) -> list[Any]:
    out = []
    for rec in records:
        value: Any = rec
        for key in path:
            value = value[key]
        out.extend(value if isinstance(value, list) else [value])
    return out


def test_people_work_and_money_follow_names_and_context() -> None:
    records = validated_records(EMPLOYEE, n=N)  # every record checked by jsonschema + formats
    skills = [s["name"] for r in records for s in r["skills"]]
    assert set(skills) <= set(wordlists.SKILLS)  # `skills[].name` is a skill, not a person
    assert not set(skills) & FIRST_NAMES
    assert set(_column(records, "hobbies")) <= set(wordlists.HOBBIES)
    for holder in _column(records, "card", "holder") + _column(records, "name"):
        assert holder.split()[0] in FIRST_NAMES, holder  # card/holder and a top-level name: people
    for number in _column(records, "card", "number"):
        digits = [int(d) for d in number]
        assert (
            len(digits) == 16
            and (sum(digits[-1::-2]) + sum(sum(divmod(2 * d, 10)) for d in digits[-2::-2])) % 10 == 0
        )
    assert set(_column(records, "department")) <= set(wordlists.DEPARTMENTS)
    companies = set(_column(records, "employer", "name"))
    assert len(companies) > N / 2 and not {c.split()[0] for c in companies} <= FIRST_NAMES
    # country codes vs names: the facets say which
    assert set(_column(records, "country")) <= ALPHA2
    assert set(_column(records, "nationality")) <= ALPHA3
    assert all(len(c) > 3 for c in _column(records, "employer", "country"))
    assert {len(x) for x in _column(records, "language")} == {2}
    assert set(_column(records, "timezone")) <= zoneinfo.available_timezones()
    # a currency code beside an amount, and one by its own name
    assert set(_column(records, "salary", "code")) <= CURRENCIES
    assert set(_column(records, "currency")) <= CURRENCIES


def test_things_text_codes_and_versions() -> None:
    records = validated_records(ARTEFACT, n=N)
    names = _column(records, "product", "name")
    assert all(
        n.split()[0] in wordlists.PRODUCT_ADJECTIVES and n.split()[-1] in " ".join(wordlists.PRODUCT_NOUNS)
        for n in names
    )
    assert all(re.fullmatch(r"[A-Z]{3}-\d{5}", s) for s in _column(records, "product", "sku"))
    assert set(_column(records, "product", "category")) <= set(wordlists.CATEGORIES)
    assert set(_column(records, "tags")) <= set(wordlists.TAGS)
    assert set(_column(records, "status")) <= set(wordlists.STATUSES)
    assert all(SEMVER.match(v) for v in _column(records, "version"))
    assert all(_hex(40).match(v) for v in _column(records, "commit_sha"))
    assert all(_hex(32).match(v) for v in _column(records, "checksum"))  # maxLength 32: an MD5
    assert all(_hex(64).match(v) for v in _column(records, "sha256"))
    assert all(v.startswith("/") and "." in v for v in _column(records, "file_path"))
    assert all(v.startswith("/") for v in _column(records, "pointer"))
    assert all(v.startswith("https://") for v in _column(records, "homepage_url"))
    assert all(v.split()[0] in FIRST_NAMES for v in _column(records, "created_by"))
    assert all(len(v) <= 200 and v.endswith(".") for v in _column(records, "description"))
    colours = set(vocab.simple_pool("en_US", "color_name").tolist())
    assert set(_column(records, "colour")) <= colours


def test_facets_win_over_names() -> None:
    schema = _obj(
        {
            "country": {"type": "string", "pattern": "^[a-z]{2}-[0-9]$"},  # no country code fits
            "description": {"type": "string", "maxLength": 4},
            "email": {"type": "string", "maxLength": 6},
            "status": {"enum": ["A", "B"]},
            "version": {"type": "string", "pattern": "^v[0-9]+$"},
            "hash": {"type": "string", "minLength": 10, "maxLength": 12},
        }
    )
    records = validated_records(schema, n=N)
    assert all(re.fullmatch(r"[a-z]{2}-[0-9]", r["country"]) for r in records)
    assert all(len(r["description"]) <= 4 and len(r["email"]) <= 6 for r in records)
    assert {r["status"] for r in records} <= {"A", "B"}
    assert all(re.fullmatch(r"v[0-9]+", r["version"]) for r in records)
    assert all(10 <= len(r["hash"]) <= 12 for r in records)


XSD = b"""<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:complexType name="Amount">
    <xs:simpleContent><xs:extension base="xs:decimal">
      <xs:attribute name="currencyID" type="xs:token" use="required"/>
    </xs:extension></xs:simpleContent>
  </xs:complexType>
  <xs:element name="payments"><xs:complexType><xs:sequence>
    <xs:element name="payment" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="card"><xs:complexType><xs:sequence>
        <xs:element name="holder" type="xs:string"/>
        <xs:element name="expiry" type="xs:string"/>
      </xs:sequence></xs:complexType></xs:element>
      <xs:element name="PriceAmount" type="Amount"/>
      <xs:element name="CountryCode"><xs:simpleType><xs:restriction base="xs:string">
        <xs:length value="3"/></xs:restriction></xs:simpleType></xs:element>
      <xs:element name="Version" type="xs:token"/>
    </xs:sequence></xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"""


def test_xsd_card_holder_currency_attribute_and_codes_validate() -> None:
    loaded = load_schema(XSD, "payments.xsd")
    plan = compile_plan(loaded, [], {"seed": 5, "root": "payments/payment"}, record_count=200)
    out = io.BytesIO()
    plan.write("xml", out)
    rows = out.getvalue().decode().splitlines()[2:-1]
    assert len(rows) == 200
    doc = xmlschema.XMLSchema10(XSD.decode()).to_dict("<payments>" + "".join(rows) + "</payments>")
    payments = doc["payment"]
    for p in payments:
        assert p["card"]["holder"].split()[0] in FIRST_NAMES
        assert re.fullmatch(r"(0[1-9]|1[0-2])/\d\d", p["card"]["expiry"])
        assert p["PriceAmount"]["@currencyID"] in CURRENCIES
        assert p["CountryCode"] in ALPHA3
        assert SEMVER.match(p["Version"])


async def test_repr_shows_inferred_category(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    content = json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **EMPLOYEE}).encode()
    r = await api.request("POST", "/schemas", tester, files={"file": ("employee.json", content)})
    assert r.status_code == 201, r.text
    sid = r.json()["schema_id"]
    r = await api.request("GET", f"/schemas/{sid}/repr", tester)
    assert r.status_code == 200, r.text
    fields = {f["path"]: f for f in r.json()["fields"]}
    children = {c["path"]: c for f in fields.values() for c in f["children"]}
    items = {c["path"]: c for c in children.get("skills", {"children": []})["children"]}
    assert fields["name"]["inferred_category"] == "full_name"
    assert fields["country"]["inferred_category"] == "country_code"
    assert fields["nationality"]["inferred_category"] == "country_code3"
    assert fields["timezone"]["inferred_category"] == "timezone"
    assert fields["department"]["inferred_category"] == "department"
    assert fields["card"]["inferred_category"] is None  # containers have none
    assert children["card.holder"]["inferred_category"] == "full_name"
    assert children["salary.code"]["inferred_category"] == "currency_code"
    assert children["salary.amount"]["inferred_category"] == "price"
    assert items["skills.name"]["inferred_category"] == "skill"
    # the same over GraphQL
    gql = await api.graphql("query($id: Int!) { schema_repr(schema_id: $id) }", {"id": sid}, tester)
    rep = gql["data"]["schema_repr"]
    assert {f["path"]: f["inferred_category"] for f in rep["fields"]}["email"] == "email"


def test_a_rule_overrides_the_inferred_category() -> None:
    loaded = load_schema(json.dumps(EMPLOYEE).encode(), "employee.json")
    rules = parse_rules(
        loaded.field_tree(),
        [{"path": "department", "category": "company"}, {"path": "skills.name", "category": "tag"}],
    )
    records = compile_plan(loaded, rules, {"seed": 2}, record_count=100).records()
    assert not {r["department"] for r in records} & set(wordlists.DEPARTMENTS)
    assert {s["name"] for r in records for s in r["skills"]} <= set(wordlists.TAGS)
