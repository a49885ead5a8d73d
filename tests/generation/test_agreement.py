"""Records that agree with themselves and locales (issue 17, items 4 and 6): on 100,000 employee
records, one address, one person, an age matching the birth date and ordered time pairs in every
record, every record valid; the `after` rule; `params.locale` and `params.locales`."""

from __future__ import annotations

import io
import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import orjson
import pytest
import xmlschema

from app.generation.cli import generate
from app.generation.engine.timeline import age_of
from app.generation.errors import ParamsError, RuleError, Unsatisfiable
from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema
from app.generation.values.category_values import city_pool
from app.generation.values.locales import SUPPORTED_LOCALES, locale_country, own_address_locales
from app.generation.values.vocab import address_pool, person_pool

N = 100_000
DRAFT = "https://json-schema.org/draft/2020-12/schema"
_DATE = {"type": "string", "format": "date"}
_STAMP = {"type": "string", "format": "date-time"}
ADDRESS = {
    "type": "object",
    "required": ["street", "city", "state", "postcode", "country"],
    "properties": {
        "street": {"type": "string", "maxLength": 80},
        "city": {"type": "string"},
        "state": {"type": "string"},
        "postcode": {"type": "string"},
        "country": {"type": "string"},
    },
}
EMPLOYEE: dict[str, Any] = {
    "$schema": DRAFT,
    "type": "object",
    "required": [
        "id", "title", "first_name", "last_name", "email", "username", "gender", "birth_date", "age",
        "hire_date", "start_date", "end_date", "created_at", "updated_at", "phone", "currency",
        "country", "state", "address", "kickoff", "wrapup",
    ],
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "title": {"enum": ["Mr", "Ms", "Mrs", "Dr"]},
        "first_name": {"type": "string", "maxLength": 40},
        "last_name": {"type": "string", "maxLength": 40},
        "email": {"type": "string", "format": "email"},
        "username": {"type": "string", "maxLength": 60},
        "gender": {"enum": ["female", "male"]},
        "birth_date": _DATE,
        "age": {"type": "integer", "minimum": 18, "maximum": 90},
        "hire_date": _DATE,
        "start_date": _DATE,
        "end_date": _DATE,
        "created_at": _STAMP,
        "updated_at": _STAMP,
        "deleted_at": _STAMP,
        "phone": {"type": "string", "pattern": "^\\+?[0-9]{10,14}$"},
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "state": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "address": ADDRESS,
        "kickoff": _DATE,  # names inference does not pair: the `after` rule orders them
        "wrapup": _DATE,
    },
}  # fmt: skip
AFTER = [{"path": "wrapup", "after": "kickoff"}]
FEMALE_TITLES, MALE_TITLES = {"Ms", "Mrs", "Dr"}, {"Mr", "Dr"}


def _plan(schema: dict[str, Any], params: dict[str, Any], rules: list[Any] = AFTER, n: int = N) -> Any:
    loaded = load_schema(json.dumps(schema).encode(), "employee.json")
    return compile_plan(loaded, parse_rules(loaded.field_tree(), rules), params, record_count=n)


def _records(params: dict[str, Any], n: int = N) -> tuple[bytes, list[dict[str, Any]]]:
    buf = io.BytesIO()
    _plan(EMPLOYEE, params, n=n).write("json", buf)
    return buf.getvalue(), orjson.loads(buf.getvalue())


@pytest.fixture(scope="module")
def us() -> list[dict[str, Any]]:
    _body, records = _records({"seed": 17})
    assert len(records) == N
    validator = jsonschema.Draft202012Validator(
        EMPLOYEE, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    for record in records:
        errors = list(validator.iter_errors(record))
        assert not errors, (record, errors[0].message)
    return records


def _check_record(r: dict[str, Any], locale: str, pools: dict[str, Any]) -> None:
    land = locale_country(locale)
    people, places, rows = pools["people"], pools["places"], pools["rows"]
    # one address, of the record's country
    a = r["address"]
    # the pool's street with a house number of its own, the pool's region and postcode with it,
    # and a city of the locale's
    street = re.sub(r"(?<![0-9])[0-9]{1,5}(?![0-9])", "#", a["street"], count=1)
    assert (street, a["state"], a["postcode"]) in rows, (locale, a)
    assert a["city"] in pools["cities"], (locale, a)
    assert a["country"] == land.name and r["country"] == land.code and r["currency"] == land.currency
    assert r["state"] in places, r["state"]
    phone = r["phone"]
    assert not phone.startswith("+") or phone[1:].startswith(land.calling_code), (locale, phone)
    # one person: names from the locale, e-mail and username from them, gender and title agree
    gender = people[r["first_name"]]
    assert r["gender"] in gender and r["title"] in (FEMALE_TITLES if r["gender"] == "female" else MALE_TITLES)
    first_ascii, last_ascii = pools["ascii"][r["first_name"]], pools["ascii"][r["last_name"]]
    for text in (r["email"].split("@")[0], r["username"]):
        assert first_ascii in text or last_ascii in text, (r["first_name"], r["last_name"], text)
    # ages and ordered times
    birth = date.fromisoformat(r["birth_date"])
    assert r["age"] == age_of(birth)
    hire = date.fromisoformat(r["hire_date"])
    assert (
        hire >= birth.replace(year=birth.year + 16) if (birth.month, birth.day) != (2, 29) else hire > birth
    )
    assert r["start_date"] < r["end_date"] and r["kickoff"] < r["wrapup"]
    created, updated = datetime.fromisoformat(r["created_at"]), datetime.fromisoformat(r["updated_at"])
    assert created < updated
    if "deleted_at" in r:
        assert updated < datetime.fromisoformat(r["deleted_at"])


def _pools(locale: str) -> dict[str, Any]:
    person, address = person_pool(locale), address_pool(locale)
    people: dict[str, set[str]] = {}
    for first, gender in zip(person["first"].tolist(), person["gender"].tolist(), strict=True):
        people.setdefault(first, set()).add(gender)
    ascii_names = dict(zip(person["first"].tolist(), person["first_ascii"].tolist(), strict=True))
    ascii_names.update(zip(person["last"].tolist(), person["last_ascii"].tolist(), strict=True))
    streets = [
        re.sub(r"(?<![0-9])[0-9]{1,5}(?![0-9])", "#", s, count=1) for s in address["street_address"].tolist()
    ]
    rows = set(zip(streets, address["state"].tolist(), address["postcode"].tolist(), strict=True))
    # a street the locale writes without a number gets one before or after it
    rows |= {(f"# {s}", st, pc) for s, st, pc in list(rows) if "#" not in s}
    rows |= {(f"{s} #", st, pc) for s, st, pc in list(rows) if "#" not in s}
    return {
        "cities": set(city_pool(locale).tolist()),
        "people": people,
        "ascii": ascii_names,
        "rows": rows,
        "places": set(address["state_abbr"].tolist()),
    }


def test_every_record_agrees_with_itself(us: list[dict[str, Any]]) -> None:
    pools = _pools("en_US")
    for r in us:
        _check_record(r, "en_US", pools)
    # the units do not freeze the data: both genders, many ages, the range of each time field
    assert {r["gender"] for r in us} == {"female", "male"} and {r["title"] for r in us} == {
        "Mr",
        "Ms",
        "Mrs",
        "Dr",
    }
    assert {min(r["age"] for r in us), max(r["age"] for r in us)} == {18, 90}
    assert len({r["end_date"] for r in us}) > 1000


def test_a_derived_value_that_breaks_its_field_is_drawn_independently() -> None:
    schema = {"$schema": DRAFT, "type": "object", "required": ["gender", "country", "currency", "city"],
              "properties": {"gender": {"enum": ["x", "y"]}, "country": {"type": "string", "pattern": "^[a-z]{4}$"},
                             "currency": {"enum": ["JPY", "CHF"]}, "city": {"type": "string"}}}  # fmt: skip
    buf = io.BytesIO()
    _plan(schema, {"seed": 3}, [], n=2000).write("json", buf)
    records = orjson.loads(buf.getvalue())
    validator = jsonschema.Draft202012Validator(schema)
    assert all(validator.is_valid(r) for r in records)
    assert {r["gender"] for r in records} == {"x", "y"} and {r["currency"] for r in records} == {"JPY", "CHF"}


@pytest.mark.parametrize("locale", ["de_DE", "fr_FR", "ja_JP"])
def test_a_locale_changes_names_addresses_and_formats(locale: str) -> None:
    _, records = _records({"seed": 5, "locale": locale}, n=4000)
    pools = _pools(locale)
    for r in records:
        _check_record(r, locale, pools)
    if locale == "de_DE":
        assert all(re.fullmatch(r"[0-9]{5}", r["address"]["postcode"]) for r in records)
        assert {r["currency"] for r in records} == {"EUR"} and {r["country"] for r in records} == {"DE"}
        assert all(r["phone"].startswith(("0", "+49")) for r in records)  # German numbers only


def test_mixed_locales_draw_each_record_s_country_from_the_list() -> None:
    locales = ["en_US", "de_DE", "fr_FR"]
    body, records = _records({"seed": 8, "locales": locales}, n=12_000)
    assert body == _records({"seed": 8, "locales": locales}, n=12_000)[0]  # same seed, same bytes
    pools = {loc: _pools(loc) for loc in locales}
    by_code = {locale_country(loc).code: loc for loc in locales}
    counts = dict.fromkeys(by_code, 0)
    for r in records:
        locale = by_code[r["country"]]
        counts[r["country"]] += 1
        _check_record(r, locale, pools[locale])
    assert all(3400 < c < 4600 for c in counts.values()), counts
    # the record's locale is keyed by the record: the second half alone gives the same records
    plan = _plan(EMPLOYEE, {"seed": 8, "locales": locales}, n=12_000)
    assert plan.records(6000, 12_000) == records[6000:]


def test_unknown_locales_are_refused_with_a_sentence() -> None:
    for params in ({"locale": "xx_YY"}, {"locale": "bg_BG"}, {"locales": []}, {"locales": ["en_US", 3]}):
        with pytest.raises(ParamsError, match="locale"):
            _plan(EMPLOYEE, {"seed": 1, **params}, n=10)


def test_supported_locales_are_those_with_their_own_address_data() -> None:
    assert own_address_locales() == SUPPORTED_LOCALES


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"path": "wrapup", "after": "nowhere"}, "no field has this path"),
        ({"path": "wrapup", "after": "created_at"}, "a date and 'created_at' a datetime"),
        ({"path": "age", "after": "birth_date"}, "applies to date, date-time and time fields"),
        ({"path": "address.city", "after": "kickoff"}, "must name a field of the same object"),
        ({"path": "wrapup", "after": "wrapup"}, "names the field itself"),
        ({"path": "wrapup", "after": 3}, "must be the path of another field"),
    ],
)
def test_the_after_rule_is_validated(rule: dict[str, Any], message: str) -> None:
    loaded = load_schema(json.dumps(EMPLOYEE).encode(), "employee.json")
    with pytest.raises(RuleError, match=re.escape(message)) as caught:
        parse_rules(loaded.field_tree(), [rule])
    assert f"'{rule['path']}'" in str(caught.value)


def test_after_rules_in_a_cycle_or_out_of_range_are_refused() -> None:
    loaded = load_schema(json.dumps(EMPLOYEE).encode(), "employee.json")
    with pytest.raises(RuleError, match="cycle"):
        parse_rules(
            loaded.field_tree(),
            [{"path": "wrapup", "after": "kickoff"}, {"path": "kickoff", "after": "wrapup"}],
        )
    rules = [{**AFTER[0], "max": "2001-01-01"}, {"path": "kickoff", "min": "2002-01-01"}]
    with pytest.raises(Unsatisfiable, match="wrapup"):
        _plan(EMPLOYEE, {"seed": 1}, rules, n=10)
    # an enumerated date cannot be moved: the rule is refused, not silently ignored
    rules = [{**AFTER[0], "enum": ["2020-01-01", "2021-06-30"]}]
    with pytest.raises(Unsatisfiable, match="'after' rule cannot order 'wrapup'"):
        _plan(EMPLOYEE, {"seed": 1}, rules, n=10)


XSD = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="staff"><xs:complexType><xs:sequence>
    <xs:element name="employee" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="first_name" type="xs:string"/>
      <xs:element name="gender"><xs:simpleType><xs:restriction base="xs:string">
        <xs:enumeration value="F"/><xs:enumeration value="M"/></xs:restriction></xs:simpleType></xs:element>
      <xs:element name="birth_date" type="xs:date"/>
      <xs:element name="age" type="xs:int"/>
      <xs:element name="hire_date" type="xs:date"/>
      <xs:element name="address"><xs:complexType><xs:sequence>
        <xs:element name="city" type="xs:string"/>
        <xs:element name="postcode" type="xs:string"/>
        <xs:element name="country"><xs:simpleType><xs:restriction base="xs:string">
          <xs:length value="2"/></xs:restriction></xs:simpleType></xs:element>
      </xs:sequence></xs:complexType></xs:element>
    </xs:sequence>
    <xs:attribute name="valid_from" type="xs:date" use="required"/>
    <xs:attribute name="valid_to" type="xs:date" use="required"/>
    </xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element></xs:schema>"""


def test_xsd_siblings_agree_too() -> None:
    loaded = load_schema(XSD.encode(), "staff.xsd")
    plan = compile_plan(loaded, [], {"seed": 2, "root": "staff/employee", "locale": "de_DE"}, record_count=N)
    buf = io.BytesIO()
    plan.write("xml", buf)
    rows = buf.getvalue().decode().splitlines()[2:-1]
    assert len(rows) == N
    xsd = xmlschema.XMLSchema10(XSD)
    for start in range(0, N, 10_000):  # xmlschema reads at most 1,000,000 elements at once
        xsd.validate("<staff>" + "".join(rows[start : start + 10_000]) + "</staff>")
    genders = {}
    for first, gender in zip(
        person_pool("de_DE")["first"].tolist(), person_pool("de_DE")["gender"].tolist(), strict=True
    ):
        genders.setdefault(first, set()).add(gender[0].upper())
    for row in rows:
        e = ElementTree.fromstring(row)
        assert e.findtext("gender") in genders[e.findtext("first_name")]
        birth, hire = (
            date.fromisoformat(e.findtext("birth_date")),
            date.fromisoformat(e.findtext("hire_date")),
        )
        assert int(e.findtext("age")) == age_of(birth) and (hire - birth).days > 16 * 365
        assert e.get("valid_from") < e.get("valid_to")
        assert e.findtext("address/country") == "DE" and re.fullmatch(
            r"[0-9]{5}", e.findtext("address/postcode")
        )


def test_the_command_takes_a_list_of_locales(tmp_path: Path) -> None:
    schema_file = tmp_path / "employee.json"
    schema_file.write_text(json.dumps(EMPLOYEE))
    shell = io.BytesIO()
    generate(schema_file, 300, "ndjson", "-", seed=6, locale="en_US, fr_FR", stdout=shell)
    expected = io.BytesIO()
    _plan(EMPLOYEE, {"seed": 6, "locales": ["en_US", "fr_FR"]}, [], n=300).write("ndjson", expected)
    assert shell.getvalue() == expected.getvalue()
    assert {orjson.loads(line)["country"] for line in shell.getvalue().splitlines()} == {"US", "FR"}


def test_a_field_gets_the_form_its_name_asks_for() -> None:
    schema = {"$schema": DRAFT, "type": "object",
              "required": ["first_name", "country_code", "country_iso3", "salutation", "city"],
              "properties": {"first_name": {"type": "string"}, "country_code": {"type": "string"},
                             "country_iso3": {"type": "string", "maxLength": 3}, "salutation": {"type": "string"},
                             "city": {"type": "string"}}}  # fmt: skip
    buf = io.BytesIO()
    _plan(schema, {"seed": 2, "locale": "de_DE"}, [], n=2000).write("json", buf)
    records = orjson.loads(buf.getvalue())
    genders = _pools("de_DE")["people"]
    assert {(r["country_code"], r["country_iso3"]) for r in records} == {("DE", "DEU")}
    for r in records:
        assert r["salutation"] in (
            {"Frau", "Dr"} if genders[r["first_name"]] == {"female"} else {"Herr", "Dr"}
        ) or (len(genders[r["first_name"]]) > 1)
    assert {r["salutation"] for r in records} == {"Frau", "Herr", "Dr"}
