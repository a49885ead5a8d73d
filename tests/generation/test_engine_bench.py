"""The benchmark schemas through the real loader: every format valid, formats agree with each
other, output reproducible whatever the chunking, sharding or file split."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import orjson
import pytest
import xmlschema
from jsonschema import Draft202012Validator

from app.generation.output_formats import FORMAT_NAMES as FORMATS
from app.generation.plan import BLOCK_SIZE, Plan, compile_plan
from app.generation.schema.loader import load_schema
from app.generation.values.category_values import city_pool
from app.generation.values.vocab import address_pool, ascii_fold, person_pool
from tests.paths import BENCH

JSON_SCHEMA = BENCH / "customer_order.schema.json"
XSD = BENCH / "customer_order.xsd"
XSD_ROOT = "customer_orders/customer_order"

pytestmark = pytest.mark.skipif(not JSON_SCHEMA.exists(), reason="benchmark schemas not present")


def _plan(path: Path, n: int, **params: object) -> Plan:
    loaded = load_schema(path.read_bytes(), path.name)
    return compile_plan(loaded, [], {"seed": 11, **params}, record_count=n)


def _out(plan: Plan, fmt: str, *args: int, **kw: object) -> bytes:
    buf = io.BytesIO()
    plan.write(fmt, buf, *args, **kw)
    return buf.getvalue()


def test_json_schema_records_validate_in_every_format() -> None:
    plan = _plan(JSON_SCHEMA, 600)
    schema = json.loads(JSON_SCHEMA.read_bytes())
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    records = orjson.loads(_out(plan, "json"))
    assert len(records) == 600
    for r in records:
        errors = list(validator.iter_errors(r))
        assert not errors, (r, errors[0].message)
    # the other formats hold the same records in the same order
    assert [orjson.loads(line) for line in _out(plan, "ndjson").splitlines()] == records
    rows = list(csv.DictReader(io.StringIO(_out(plan, "csv").decode())))
    assert len(rows) == 600
    for row, r in zip(rows, records, strict=True):
        assert row["email"] == r["email"] and row["address.city"] == r["address"]["city"]
        assert json.loads(row["line_items"]) == r["line_items"]
        assert row["notes"] == (r.get("notes") or "")
    xml_text = _out(plan, "xml").decode()
    assert xml_text.count("<record ") == 600


def test_multiple_of_float_trap_is_avoided() -> None:
    records = orjson.loads(_out(_plan(JSON_SCHEMA, 2000), "json"))
    amounts = [r["amount"] for r in records] + [i["unit_price"] for r in records for i in r["line_items"]]
    assert all(int(a / 0.01) == a / 0.01 for a in amounts)
    assert any(round(a, 2) != round(a) for a in amounts)  # real cents, not only whole numbers


def test_xsd_records_validate_with_xmlschema() -> None:
    plan = _plan(XSD, 400, root=XSD_ROOT)
    body = _out(plan, "xml").decode()
    assert body.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<records>\n') and body.endswith("</records>\n")
    records = body.splitlines()[2:-1]
    assert len(records) == 400
    schema = xmlschema.XMLSchema10(str(XSD))
    # the records are customer_order elements: inside their declared parent they form a valid document
    document = "<customer_orders>" + "".join(records) + "</customer_orders>"
    schema.validate(document)
    decoded = schema.to_dict(document)["customer_order"]
    as_json = orjson.loads(_out(plan, "json"))
    assert [d["@id"] for d in decoded] == [r["@id"] for r in as_json]
    assert [d["email"] for d in decoded] == [r["email"] for r in as_json]


@pytest.mark.parametrize("fmt", FORMATS)
def test_chunking_sharding_and_files_do_not_change_a_byte(fmt: str) -> None:
    n = 2 * BLOCK_SIZE + 1234
    plan = _plan(JSON_SCHEMA, n)
    single = _out(plan, fmt)
    for chunk in (1000, 700, 5000):
        assert _out(plan, fmt, chunk_size=chunk, guard=False) == single
    for shards in (2, 3):
        ranges = plan.shard_ranges(shards)
        assert ranges[0][0] == 0 and ranges[-1][1] == n and all(a % BLOCK_SIZE == 0 for a, _ in ranges)
        fresh = _plan(JSON_SCHEMA, n)  # another worker: nothing shared but the inputs
        parts = [_out(fresh, fmt, a, b, header=(k == 0), footer=(k == len(ranges) - 1), guard=False)
                 for k, (a, b) in enumerate(ranges)]
        assert b"".join(parts) == single


@pytest.mark.parametrize(("path", "params"), [(JSON_SCHEMA, {}), (XSD, {"root": XSD_ROOT})])
def test_all_formats_written_at_once_equal_each_written_alone(path: Path, params: dict[str, object]) -> None:
    """write_many (one generation per chunk for every format, as a shard does) gives each
    stream the bytes of its own `write`, for a whole range and for a middle part of a file."""
    n = BLOCK_SIZE + 1500
    plan = _plan(path, n, **params)
    for a, b, header, footer in ((0, n, True, True), (BLOCK_SIZE - 300, n - 200, False, False)):
        streams = [io.BytesIO() for _ in FORMATS]
        done: list[int] = []
        sizes = plan.write_many(list(zip(FORMATS, streams, strict=True)), a, b, header=header, footer=footer,
                                progress=done.append)
        assert sum(done) == (b - a) * len(FORMATS)
        for fmt, stream, size in zip(FORMATS, streams, sizes, strict=True):
            alone = _out(_plan(path, n, **params), fmt, a, b, header=header, footer=footer)
            assert stream.getvalue() == alone, fmt
            assert size == len(alone)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_range_cut_short_while_written_joins_its_other_half(fmt: str) -> None:
    """A running shard that gives the rest of its range away (`limit` drops to a block edge
    mid-write) writes exactly [start, edge) and no footer; the half it gave away, written by
    another plan, completes the file byte for byte."""
    n = 4 * BLOCK_SIZE + 777
    plan = _plan(JSON_SCHEMA, n)
    single = _out(plan, fmt)
    stop = [n]
    asked: list[int] = []

    def progress(records: int) -> None:
        asked.append(records)
        if len(asked) == 2:  # after the second chunk: keep up to the next block edge but one
            stop[0] = 3 * BLOCK_SIZE

    head = io.BytesIO()
    size = plan.write_many([(fmt, head)], 0, n, progress=progress, limit=lambda: stop[0])[0]
    assert sum(asked) == 3 * BLOCK_SIZE and size == len(head.getvalue())
    assert head.getvalue() == _out(_plan(JSON_SCHEMA, n), fmt, 0, 3 * BLOCK_SIZE, footer=False)
    tail = _out(_plan(JSON_SCHEMA, n), fmt, 3 * BLOCK_SIZE, n, header=False)
    assert head.getvalue() + tail == single
    # a limit already at the start writes the header alone
    empty = io.BytesIO()
    plan.write_many([(fmt, empty)], 0, n, limit=lambda: 0)
    assert empty.getvalue() == _out(plan, fmt, 0, 0, footer=False)


def test_records_per_file_splits_by_index() -> None:
    plan = _plan(JSON_SCHEMA, 2500, records_per_file=1000)
    assert plan.file_ranges() == [(0, 1000), (1000, 2000), (2000, 2500)]
    whole = orjson.loads(_out(_plan(JSON_SCHEMA, 2500), "json"))
    files = []
    for i in range(3):
        buf = io.BytesIO()
        plan.write_file("json", buf, i)
        files.append(orjson.loads(buf.getvalue()))
    assert [len(f) for f in files] == [1000, 1000, 500]
    assert files[0] + files[1] + files[2] == whole


def test_seed_changes_the_data() -> None:
    a = _out(_plan(JSON_SCHEMA, 50), "csv")
    b = _out(_plan(JSON_SCHEMA, 50, seed=12), "csv")
    assert a != b and a.splitlines()[0] == b.splitlines()[0]


@pytest.mark.parametrize("locale", ["en_US", "de_DE", "fr_FR", "ja_JP"])
def test_locales_and_related_fields(locale: str, tmp_path: Path) -> None:
    # the bench schema's country is an enum of five countries, and a record then follows its own
    # country (engine/countries.py): without the enum, every record is of params.locale
    schema = json.loads(JSON_SCHEMA.read_bytes())
    del schema["properties"]["address"]["properties"]["country"]["enum"]
    path = tmp_path / "no_country_enum.schema.json"
    path.write_text(json.dumps(schema))
    records = orjson.loads(_out(_plan(path, 300, locale=locale), "json"))
    people = person_pool(locale)
    firsts, lasts = set(people["first"].tolist()), set(people["last"].tolist())
    cities = set(city_pool(locale).tolist())
    by_first = dict(zip(people["first"].tolist(), people["first_ascii"].tolist(), strict=True))
    by_last = dict(zip(people["last"].tolist(), people["last_ascii"].tolist(), strict=True))
    derived = 0
    for r in records:
        assert r["first_name"] in firsts and r["last_name"] in lasts
        assert r["address"]["city"] in cities
        assert r["email"].isascii()
        local = r["email"].split("@")[0]
        derived += by_last[r["last_name"]] in local or by_first[r["first_name"]] in local
    assert derived >= 0.95 * len(records)  # e-mails are built from the record's own name


def test_address_fields_come_from_one_address() -> None:
    from app.generation.model import FieldTree, Kind, Node

    names = ["street", "city", "state", "zip"]
    tree = FieldTree(Node(Kind.OBJECT, name="r", children=[
        Node(Kind.OBJECT, name="address", path="address", children=[
            Node(Kind.STRING, name=n, path=f"address.{n}") for n in names])]), root_name="r")
    records = orjson.loads(_out(compile_plan(tree, [], {"seed": 4}, record_count=300), "json"))
    pool = address_pool("en_US")

    def numberless(street: str) -> str:  # the house number is drawn afresh (values/compose.py)
        return re.sub(r"\d+", "#", street)

    rows = set(zip(map(numberless, pool["street_address"].tolist()), pool["state"].tolist(),
                   pool["postcode"].tolist(), strict=True))
    for r in records:
        a = r["address"]
        assert (numberless(a["street"]), a["state"], a["zip"]) in rows
        assert a["city"]  # from the wider pool of the locale's cities
    assert len({r["address"]["street"] for r in records}) > 290


def test_ascii_fold() -> None:
    assert ascii_fold("Müller-Lüdenscheidt") == "mullerludenscheidt"
