"""Coverage sets (issue 31) on real schemas we did not design: the targets are computed here from
the raw schema (JSON Schema keywords walked by hand; the XSD through xmlschema's components), every
record is checked by jsonschema (FormatChecker, the schema's draft) or xmlschema, and every target
is looked for in the records themselves: the report only names the targets it calls unreachable
(each with a reason). Pairwise sets are checked pair by pair and their size is compared with
allpairspy's for the same factors, in the same run."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema
from allpairspy import AllPairs

from app.generation.cli import generate
from app.generation.coverage import compile_coverage
from app.generation.coverage.pairwise import ipog, pairs_missed
from app.generation.errors import ParamsError
from app.generation.params import parse_params

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
OCPP = CORPUS / "json" / "ocpp-v201-TransactionEventRequest.json"  # $refs, nested, arrays, bounds
ANGULAR = CORPUS / "json" / "angular-component.json"  # 14 booleans, 3 enums, a oneOf, optional parts
METALINK = CORPUS / "xsd" / "metalink-3.0.xsd"  # enumerations, optional attributes and elements
MISSING = object()


# -- JSON Schema targets, from the raw schema ---------------------------------------------------


def _resolve(root: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def json_targets(root: dict[str, Any]) -> list[tuple[str, tuple[str, ...], Any]]:
    """(kind, location, value): kind enum | boolean | null | minimum | maximum | length | items |
    branch (value: the option schema) | present (value: True/False)."""
    out: list[tuple[str, tuple[str, ...], Any]] = []

    def walk(node: Any, segs: tuple[str, ...], depth: int) -> None:
        node = _resolve(root, node)
        if not isinstance(node, dict) or depth > 8:
            return
        types = node.get("type")
        types = [types] if isinstance(types, str) else list(types or [])
        if "enum" in node:
            out.extend(("enum", segs, v) for v in node["enum"])
        elif "const" in node:
            out.append(("enum", segs, node["const"]))
        elif types == ["boolean"]:
            out.extend(("boolean", segs, b) for b in (True, False))
        if "null" in types and len(types) > 1:
            out.extend(("null", segs, b) for b in (True, False))
        for kw in ("minimum", "maximum"):
            if kw in node:
                out.append((kw, segs, node[kw]))
        for kw in ("minLength", "maxLength"):
            if kw in node and not (kw == "minLength" and node[kw] == 0):
                out.append(("length", segs, node[kw]))
        for kw in ("minItems", "maxItems"):
            if kw in node:
                out.append(("items", segs, node[kw]))
        for kw in ("oneOf", "anyOf"):
            for option in node.get(kw, []):
                out.append(("branch", segs, option))
        required = set(node.get("required", []))
        for name, sub in node.get("properties", {}).items():
            if name not in required:
                out.extend(("present", (*segs, name), b) for b in (True, False))
            walk(sub, (*segs, name), depth + 1)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*segs, "*"), depth + 1)

    walk(root, (), 0)
    return out


def places(value: Any, segs: tuple[str, ...]) -> list[Any]:
    """The values at a location (each item for `*`); MISSING where the last key is absent."""
    if not segs:
        return [value]
    head, rest = segs[0], segs[1:]
    if head == "*":
        return [v for item in value for v in places(item, rest)] if isinstance(value, list) else []
    if not isinstance(value, dict):
        return []
    if head not in value:
        return [MISSING] if not rest else []
    return places(value[head], rest)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return Decimal(str(a)) == Decimal(str(b))
    return bool(a == b)


def json_met(root: dict[str, Any], kind: str, segs: tuple[str, ...], value: Any, records: list[Any]) -> bool:
    for rec in records:
        found = places(rec, segs)
        here = [v for v in found if v is not MISSING]
        if kind == "present":
            if any((v is not MISSING) == value for v in found):
                return True
        elif kind in ("enum", "boolean", "minimum", "maximum"):
            if any(same(v, value) for v in here):
                return True
        elif kind == "null":
            if any((v is None) == value for v in here):
                return True
        elif kind == "length":
            if any(isinstance(v, str) and len(v) == value for v in here):
                return True
        elif kind == "items":
            if any(isinstance(v, list) and len(v) == value for v in here):
                return True
        elif kind == "branch":
            check = jsonschema.validators.validator_for(root)(
                {**value, "definitions": root.get("definitions", {})}
            )
            if any(v is not None and check.is_valid(v) for v in here):
                return True
    return False


def pointer(segs: tuple[str, ...]) -> str:
    return "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in segs)


REPORT_KIND = {
    "enum": "enum",
    "boolean": "boolean",
    "null": "null",
    "present": "presence",
    "minimum": "bound",
    "maximum": "bound",
    "length": "bound",
    "items": "bound",
    "branch": "branch",
}


def unreachable(report: dict[str, Any]) -> dict[tuple[str, str], list[Any]]:
    out: dict[tuple[str, str], list[Any]] = {}
    for t in report["targets"]:
        if t["record"] is None:
            assert t["reason"], t
            out.setdefault((t["pointer"], t["kind"]), []).append(t["value"])
    return out


def run(tmp_path: Path, schema: Path, mode: str, fmt: str = "json", count: int | None = None) -> tuple[str, dict[str, Any]]:
    out = tmp_path / f"out.{fmt}"
    generate(schema, count, fmt, str(out), seed=20261128, coverage=mode, jobs=1)
    report = json.loads((tmp_path / f"out.{fmt}.coverage.json").read_text())
    assert report["mode"] == mode
    assert report["covered"] + sum(1 for t in report["targets"] if t["record"] is None) == report["total"]
    return out.read_text(), report


@pytest.mark.parametrize("schema", [OCPP, ANGULAR], ids=["ocpp-transaction-event", "angular-component"])
def test_each_covers_every_target_of_a_real_json_schema(tmp_path: Path, schema: Path) -> None:
    root = json.loads(schema.read_text())
    text, report = run(tmp_path, schema, "each")
    records = json.loads(text)
    assert len(records) == report["records"]
    validator = jsonschema.validators.validator_for(root)(root, format_checker=jsonschema.FormatChecker())
    for i, rec in enumerate(records):
        errors = [e.message for e in validator.iter_errors(rec)]
        assert not errors, (i, errors)
    targets = json_targets(root)
    assert len(targets) > 40
    skipped = unreachable(report)
    missed = []
    for kind, segs, value in targets:
        if json_met(root, kind, segs, value, records):
            continue
        if (pointer(segs), REPORT_KIND[kind]) in skipped:
            continue  # reported unreachable, with its reason
        missed.append((kind, pointer(segs), value))
    assert not missed
    # only a few reported unreachable (a pattern that cannot reach maxLength, and such)
    assert sum(len(v) for v in skipped.values()) <= max(2, len(targets) // 20)
    # close to the largest single domain
    domains = [
        sum(1 for k, s, _ in targets if s == segs and k in ("enum", "boolean", "branch"))
        for _, segs, _ in targets
    ]
    assert report["records"] <= 1.5 * max(max(domains), 2)


def test_pairwise_covers_every_pair_and_is_no_larger_than_allpairspy(tmp_path: Path) -> None:
    root = json.loads(ANGULAR.read_text())
    text, report = run(tmp_path, ANGULAR, "pairwise")
    records = json.loads(text)
    validator = jsonschema.validators.Draft7Validator(root, format_checker=jsonschema.FormatChecker())
    assert all(validator.is_valid(r) for r in records)
    # factors: each finite-domain property (enum values, booleans, the oneOf's branches), plus
    # 'absent' where it is optional (every property but name and project is)
    required = set(root["required"])
    factors: list[tuple[str, list[Any]]] = []
    for name, sub in root["properties"].items():
        levels: list[Any]
        if "enum" in sub:
            levels = [("value", v) for v in sub["enum"]]
        elif sub.get("type") == "boolean":
            levels = [("value", True), ("value", False)]
        elif "oneOf" in sub:
            levels = [("branch", o) for o in sub["oneOf"]]
        else:
            continue
        if name not in required:
            levels.append(("absent", None))
        factors.append((name, levels))
    assert len(factors) >= 15

    def has(rec: dict[str, Any], name: str, level: tuple[str, Any]) -> bool:
        kind, v = level
        if kind == "absent":
            return name not in rec
        if name not in rec:
            return False
        if kind == "branch":
            return jsonschema.Draft7Validator({"type": "string", **v}).is_valid(rec[name])
        return same(rec[name], v)

    missing = [
        (a, la, b, lb)
        for i, (a, levels_a) in enumerate(factors)
        for b, levels_b in factors[i + 1 :]
        for la in levels_a
        for lb in levels_b
        if not any(has(r, a, la) and has(r, b, lb) for r in records)
    ]
    assert not missing
    # every single target too
    for kind, segs, value in json_targets(root):
        assert json_met(root, kind, segs, value, records) or (pointer(segs), REPORT_KIND[kind]) in unreachable(
            report
        ), (kind, segs)
    allpairs = list(AllPairs([levels for _, levels in factors]))
    assert len(records) <= len(allpairs), (len(records), len(allpairs))


def test_random_records_follow_the_set(tmp_path: Path) -> None:
    root = json.loads(ANGULAR.read_text())
    text, report = run(tmp_path, ANGULAR, "each", count=40)
    records = json.loads(text)
    assert len(records) == 40 and report["records"] < 40
    validator = jsonschema.Draft7Validator(root, format_checker=jsonschema.FormatChecker())
    assert all(validator.is_valid(r) for r in records)
    # reproducible from the seed (a run's draws depend on its record count, so the same count)
    again = tmp_path / "again"
    again.mkdir()
    text_again, report_again = run(again, ANGULAR, "each", count=40)
    assert text_again == text and report_again == report


# -- XSD -----------------------------------------------------------------------------------------


def xsd_targets(
    schema: xmlschema.XMLSchemaBase, root_name: str, depth_cap: int = 8
) -> list[tuple[str, tuple[str, ...], Any]]:
    """(kind, location path of local names, value): enum, present (True/False), occurs (count);
    elements nested deeper than `depth_cap` are left out."""
    out: list[tuple[str, tuple[str, ...], Any]] = []

    def facets(xsd_type: Any, segs: tuple[str, ...]) -> None:
        enum = getattr(xsd_type, "enumeration", None)
        if enum:
            out.extend(("enum", segs, v) for v in enum)

    def walk(elem: Any, segs: tuple[str, ...], depth: int) -> None:
        if depth > depth_cap:
            return
        xsd_type = getattr(elem, "type", None)
        if xsd_type is None:  # a wildcard (xs:any): no targets of its own
            return
        for attr in getattr(xsd_type, "attributes", {}).values():
            if not hasattr(attr, "use") or attr.local_name is None:
                continue
            asegs = (*segs, "@" + attr.local_name)
            if attr.use == "optional":
                out.extend(("present", asegs, b) for b in (True, False))
            facets(attr.type, asegs)
        if xsd_type.is_simple() or xsd_type.has_simple_content():
            facets(xsd_type if xsd_type.is_simple() else xsd_type.content, segs)
            return
        for child in xsd_type.content.iter_elements():
            if getattr(child, "local_name", None) is None:
                continue
            csegs = (*segs, child.local_name)
            if child.min_occurs == 0 and child.max_occurs == 1:
                out.extend(("present", csegs, b) for b in (True, False))
            if child.max_occurs != 1:
                out.append(("occurs", csegs, child.min_occurs))
                if child.max_occurs is not None:
                    out.append(("occurs", csegs, child.max_occurs))
            walk(child, csegs, depth + 1)

    walk(schema.elements[root_name], (), 0)
    return out


def xml_places(elem: ET.Element, segs: tuple[str, ...]) -> list[Any]:
    """Values at a location path: attribute values, element text, MISSING where the last step
    is absent from a parent that exists; for `occurs` use `xml_counts`."""
    if not segs:
        return [(elem.text or "").strip()]
    head, rest = segs[0], segs[1:]
    if head.startswith("@"):
        return [elem.attrib.get(head[1:], MISSING)]
    kids = [c for c in elem if c.tag.rsplit("}", 1)[-1] == head]
    if not kids:
        return [MISSING] if not rest else []
    return [v for k in kids for v in xml_places(k, rest)]


def xml_counts(elem: ET.Element, segs: tuple[str, ...]) -> list[int]:
    *parents, name = segs
    nodes = [elem]
    for step in parents:
        nodes = [c for n in nodes for c in n if c.tag.rsplit("}", 1)[-1] == step]
    return [sum(1 for c in n if c.tag.rsplit("}", 1)[-1] == name) for n in nodes]


def _xsd_each(
    tmp_path: Path, source: Path, root: str, depth_cap: int = 8
) -> tuple[dict[str, Any], list[Any], list[ET.Element]]:
    """The each set of an XSD as XML: every record valid by xmlschema, every target of the schema
    (xsd_targets) found by scanning the records or reported unreachable. Returns the report, the
    targets and the records."""
    schema = xmlschema.XMLSchema(str(source))
    text, report = run(tmp_path, source, "each", fmt="xml")
    records = list(ET.fromstring(text))
    assert len(records) == report["records"]
    for i, rec in enumerate(records):
        errors = [str(e.reason) for e in schema.iter_errors(ET.tostring(rec, encoding="unicode"))]
        assert not errors, (i, errors)
    targets = xsd_targets(schema, root, depth_cap)
    skipped = unreachable(report)
    missed = []
    for kind, segs, value in targets:
        if kind == "occurs":
            met = any(value in xml_counts(r, segs) for r in records)
        elif kind == "present":
            met = any((v is not MISSING) == value for r in records for v in xml_places(r, segs))
        else:
            met = any(v == value for r in records for v in xml_places(r, segs))
        kinds = {"occurs": "bound", "present": "presence", "enum": "enum"}
        if not met and (pointer(segs), kinds[kind]) not in skipped:
            missed.append((kind, pointer(segs), value))
    assert not missed
    return report, targets, records


def _largest_enum(targets: list[Any]) -> int:
    return max(sum(1 for k, s, _ in targets if s == segs and k == "enum") for _, segs, _ in targets)


def test_each_covers_every_target_of_a_real_xsd(tmp_path: Path) -> None:
    report, targets, _ = _xsd_each(tmp_path, METALINK, "metalink")
    assert len(targets) > 60
    assert report["records"] <= 1.5 * _largest_enum(targets)


def test_each_spreads_targets_across_repeated_items(tmp_path: Path) -> None:
    """ncml-2.2.xsd: netcdf's content is a repeated choice (group, variable, attribute, dimension,
    enumTypedef, remove), nested in itself through group. A target inside a repeated element or
    choice is forced at item k of a record, not always at the first item, so one record carries
    several values of a repeated field. Its largest single domain is DataType's 15 values (the
    type of an attribute, a variable or an enumTypedef at one location path, which pools every
    item of the repeat; the choice has 6 branches, ObjectType 4 values), so at most 22 records.
    Random records draw at most 3 items of an unbounded repeat; the 66 items netcdf's choice needs
    (49 for the types of /attribute, /variable, /enumTypedef and /remove, 17 group items for
    group's own children) would take 23 records at 3 a record: coverage records are pinned to up
    to 12 (items.widen, within the record budget)."""
    # recursive (group in group, variable in variable): the engine gives a recursion point's
    # generator its targets once, at the first position, so the walk stops at netcdf/group/group/group
    report, targets, records = _xsd_each(tmp_path, CORPUS / "xsd" / "ncml-2.2.xsd", "netcdf", depth_cap=3)
    assert len(targets) > 400
    assert report["total"] > 2000 and report["covered"] >= report["total"] - 5
    largest = _largest_enum(targets)
    assert largest == 15
    assert report["records"] <= 1.5 * largest, report["records"]
    # several values of one repeated field in one record, beyond the 3 items of a random record
    spread = max(len({v for v in xml_places(r, ("attribute", "@type")) if v is not MISSING}) for r in records)
    assert spread > 3


def test_a_large_max_items_is_hit_exactly(tmp_path: Path) -> None:
    """maxItems 12 with no minItems: random records draw at most 8 items (ARRAY_SPREAD), a coverage
    record may hold up to 12 (items.widen), so the bound is met, not reported unreachable; 13 is
    past the widened limit and is reported with the reason (no target left: a set of no records,
    written as an empty file, where Plan.file_ranges used to raise ValueError)."""
    for most, reachable in ((12, True), (13, False)):
        schema = {
            "type": "object",
            "required": ["a"],
            "properties": {"a": {"type": "array", "maxItems": most, "items": {"type": "integer"}}},
        }
        source = tmp_path / f"max{most}.json"
        source.write_text(json.dumps(schema))
        text, report = run(tmp_path, source, "each")
        records = json.loads(text)
        assert all(jsonschema.Draft202012Validator(schema).is_valid(r) for r in records)
        bound = next(t for t in report["targets"] if t.get("keyword") == "maxItems")
        assert (bound["record"] is not None) == reachable, bound
        assert any(len(r["a"]) == most for r in records) == reachable
        if not reachable:
            assert "at most 12 items" in bound["reason"]


# -- the pairwise construction against allpairspy --------------------------------------------------


def test_ipog_is_no_larger_than_allpairspy() -> None:
    rnd = random.Random(31)
    ours_total = theirs_total = 0
    for _ in range(25):
        sizes = [rnd.randint(2, 6) for _ in range(rnd.randint(2, 8))]
        rows = ipog(sizes)
        assert pairs_missed(rows, sizes) == 0
        theirs = len(list(AllPairs([list(range(s)) for s in sizes])))
        assert len(rows) <= theirs, (sizes, len(rows), theirs)
        ours_total += len(rows)
        theirs_total += theirs
    assert ours_total < theirs_total


def test_ipog_keeps_incompatible_levels_apart() -> None:
    # factor 1's levels exist only with factor 0 at level 0 (a field inside one branch)
    def ok(a: int, la: int, b: int, lb: int) -> bool:
        if (a, b) == (0, 1):
            return la == 0
        if (a, b) == (1, 0):
            return lb == 0
        return True

    sizes = [3, 2, 3]
    rows = ipog(sizes, ok)
    assert pairs_missed(rows, sizes, ok) == 0
    assert all(r[0] in (0, None) or r[1] is None for r in rows)


def test_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ParamsError, match="--report needs --coverage"):
        generate(ANGULAR, 5, "json", str(tmp_path / "x.json"), report=str(tmp_path / "r.json"), jobs=1)
    with pytest.raises(ParamsError, match="each or pairwise"):
        generate(ANGULAR, 5, "json", str(tmp_path / "x.json"), coverage="all", jobs=1)
    with pytest.raises(ParamsError, match="record count"):
        generate(ANGULAR, None, "json", str(tmp_path / "x.json"), jobs=1)
    # a broken record of the set would leave the report claiming a target it no longer meets:
    # only rate 1 with each (the negative suite) combines them
    with pytest.raises(ParamsError, match="combine only as --coverage each --invalid-rate 1"):
        generate(ANGULAR, 5, "json", str(tmp_path / "x.json"), coverage="each", invalid_rate=0.5, jobs=1)
    with pytest.raises(ParamsError, match="combine only as coverage each with invalid_rate 1"):
        parse_params({"coverage": "pairwise", "invalid_rate": 0.5})
    with pytest.raises(ParamsError, match="combine only as coverage each with invalid_rate 1"):
        parse_params({"coverage": "pairwise", "invalid_rate": 1})
    assert parse_params({"coverage": "each", "invalid_rate": 1}).invalid_rate == 1
    with pytest.raises(ParamsError, match="--report has nothing to report for the negative suite"):
        generate(ANGULAR, 5, "json", str(tmp_path / "x.json"), coverage="each", invalid_rate=1.0,
                 report=str(tmp_path / "r.json"), jobs=1)


def _many_enums(fields: int, levels: int) -> bytes:
    props = {f"f{i:02d}": {"enum": [f"v{j}" for j in range(levels)]} for i in range(fields)}
    return json.dumps({"type": "object", "required": sorted(props), "properties": props}).encode()


def test_coverage_set_bounds() -> None:
    """A set is built within its deadline and bounds, or refused with coverage_too_large (not a
    build that runs on): pairwise over 40 enum fields took 22.5 s without them."""
    import time

    from app.generation.coverage import sets
    from app.generation.errors import CoverageTooLarge
    from app.generation.schema.loader import load_schema

    loaded = load_schema(_many_enums(40, 4), "many.json")
    began = time.process_time()
    with pytest.raises(CoverageTooLarge) as late:
        compile_coverage(loaded, [], {"seed": 3}, mode="pairwise", record_count=1, seconds=0.5)
    assert time.process_time() - began < 15  # the compile, then at most about the deadline
    assert late.value.code == "coverage_too_large" and "within 0.5 s" in late.value.detail
    assert late.value.field == "params.coverage"
    # the same schema's `each` set is small and quick: built within the deadline
    _, cover = compile_coverage(loaded, [], {"seed": 3}, mode="each", record_count=1, seconds=30)
    assert cover.size == 4

    original = sets.MAX_TARGETS
    try:
        sets.MAX_TARGETS = 200  # 40 x 4 values + 40 x 39 / 2 x 16 pairs is far above it
        with pytest.raises(CoverageTooLarge, match="targets, above the limit of 200"):
            compile_coverage(loaded, [], {"seed": 3}, mode="pairwise", record_count=1)
    finally:
        sets.MAX_TARGETS = original
    original = sets.MAX_RECORDS
    try:
        sets.MAX_RECORDS = 3  # the each set needs 4
        with pytest.raises(CoverageTooLarge, match="more than 3 records"):
            compile_coverage(loaded, [], {"seed": 3}, mode="each", record_count=1)
    finally:
        sets.MAX_RECORDS = original


@pytest.mark.parametrize("name", ["angular-component.json", "ocpp-v16-StatusNotification.json"])
def test_negative_suite(tmp_path: Path, name: str) -> None:
    """--coverage each --invalid-rate 1: one invalid record per breakable (location, keyword), each
    checked by jsonschema (with format checking) to fail at the keyword and schema location its
    label names; no constraint twice; the run's size is the suite's."""
    source = CORPUS / "json" / name
    schema = json.loads(source.read_bytes())
    out = tmp_path / "suite.json"
    plan, _ = generate(source, None, "json", str(out), coverage="each", invalid_rate=1, seed=8)
    records = json.loads(out.read_bytes())
    labels = [json.loads(line) for line in (tmp_path / "suite.json.labels.ndjson").read_bytes().splitlines()]
    assert plan.negative is not None and plan.negative.suite
    assert len(records) == len(labels) == len(plan.negative.offered) >= 10
    assert [label["record"] for label in labels] == list(range(len(records)))
    assert len({(label["schema_pointer"], label["keyword"]) for label in labels}) == len(labels)
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker())
    for record, label in zip(records, labels, strict=True):
        errors = list(validator.iter_errors(record))
        places = {("/" + "/".join(map(str, e.absolute_schema_path)), e.validator) for e in errors}
        assert (label["schema_pointer"], label["keyword"]) in places, (label, places)
    with pytest.raises(ParamsError, match="combine only as --coverage each --invalid-rate 1"):
        generate(source, None, "json", str(out), coverage="each", invalid_rate=0.5, seed=8)
    with pytest.raises(ParamsError, match="combine only as"):
        generate(source, None, "json", str(out), coverage="pairwise", invalid_rate=1, seed=8)


@pytest.mark.parametrize("entry_id", ["ncml-2.2", "metalink-3.0"])
def test_negative_suite_of_an_xsd(tmp_path: Path, entry_id: str) -> None:
    """The XSD negative suite: one record per constraint offered, each judged by xmlschema (the
    corpus files read by xmlschema itself) to break exactly its label's constraint; no constraint
    twice. ncml: the type of its xs:float attributes is among them (xmlschema reports a bad float
    as a break of the built-in type's pattern and of the type; the suite used to stop at the first
    such record, broken by nothing alone)."""
    from tests.generation.test_negative_xsd import ENTRIES, check_labels, reference_schema

    entry = ENTRIES[entry_id]
    out = tmp_path / "suite.xml"
    plan, _ = generate(CORPUS / entry["path"], None, "xml", str(out), coverage="each", invalid_rate=1, seed=3)
    records = list(ET.fromstring(out.read_bytes()))
    labels = [json.loads(line) for line in (tmp_path / "suite.xml.labels.ndjson").read_bytes().splitlines()]
    assert plan.negative is not None and plan.negative.suite
    assert len(records) == len(labels) == len(plan.negative.offered) >= 20
    assert [label["record"] for label in labels] == list(range(len(records)))
    assert len({(label["schema_pointer"], label["keyword"]) for label in labels}) == len(labels)
    check_labels(reference_schema(entry), records, labels)
    if entry_id == "ncml-2.2":
        assert {"/netcdf/variable/values/@start/type", "/netcdf/variable/values/@increment/type"} <= {
            label["schema_pointer"] for label in labels
        }
