"""Field semantics census (not a test): how many string fields of the corpus get a meaning?

    python benchmarks/realism.py [--only ID ...] [--list N] [--json FILE]

For every schema of tests/corpus/manifest.json (its default record root, recursion points
included) each distinct string leaf path is put in one bucket, as the compiler would fill it
without rules:
  semantic  a value category from the field's name, context or format (categories.py,
            the name table in values/semantics.py): an e-mail, a skill, a semantic version ...
  shaped    no category, but a format or pattern decides what the value looks like
  code      no category, a code-like name (`id`, `key`, `ref` ...): upper-case codes
  generic   none of these: lorem-ipsum words up to the length facets
Enum/const fields (the schema lists the values) are counted apart and left out of the shares.
Per schema it prints the counts and the semantic share, then the generic fields (name and
owner); at the end the pooled shares over all schemas.

    python benchmarks/realism.py --variety [--records N] [--seed S]

Issue 32's figures on the schemas of tests/generation/realism_schemas.py (a CRM contact and a
checkout order, no rules), 50,000 records by default: the distinct share of phone-like fields
(target >= 95%), streets and free texts (>= 90%); for company, job title and city the share of
10-record previews showing a value twice (target: none in the first); each enum's spread (the
smallest and largest value count against an even share); and the share of records whose postal
code, phone prefix and IBAN belong to the record's country.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUCKETS = ("semantic", "shaped", "code", "generic")


def census(entry: dict) -> dict:
    from app.generation.errors import GenerationError
    from app.generation.model import Kind
    from app.generation.schema.loader import load_schema
    from app.generation.values.categories import FieldSemantics
    from app.generation.values.category_values import STRING_GENERATORS
    from app.generation.values.strings import _CODE_NAMES
    from tests.generation.corpus import schema_bytes

    content, name = schema_bytes(entry)
    try:
        tree = load_schema(content, name).field_tree()
    except GenerationError as exc:
        return {"id": entry["id"], "skipped": exc.detail}
    semantics = FieldSemantics(tree)
    seen: dict[str, str] = {}
    generic: Counter[str] = Counter()
    enums = 0
    for top in (tree.root, *tree.definitions.values()):
        for node in top.walk():
            if node.kind is not Kind.STRING or node.path in seen:
                continue
            if (
                node.enum is not None
                or node.has_const
                or (node.xml is not None and node.xml.fixed is not None)
            ):
                enums += 1
                seen[node.path] = "enum"
                continue
            category = semantics.category(node)
            if category is not None and (category in STRING_GENERATORS or node.format):
                bucket = "semantic"
            elif node.format or node.patterns:
                bucket = "shaped"
            elif any(k in node.name.lower() for k in _CODE_NAMES):
                bucket = "code"
            else:
                bucket = "generic"
                parts = node.path.split(".")
                generic[".".join(parts[-2:])] += 1
            seen[node.path] = bucket
    counts = Counter(b for b in seen.values() if b != "enum")
    return {"id": entry["id"], "enum": enums, **{b: counts[b] for b in BUCKETS}, "generic_fields": generic}


def variety(records: int, seed: int) -> None:
    import io
    import time

    import orjson

    from app.generation.plan import compile_plan
    from app.generation.rules import parse_rules
    from app.generation.schema.loader import load_schema
    from tests.generation import realism_schemas as rs

    cases = (
        (
            "crm_contact",
            rs.CRM_CONTACT,
            lambda r: r["country"],
            lambda r: r["postal_code"],
            ("phone", "mobile_phone"),
        ),
        (
            "checkout_order",
            rs.CHECKOUT_ORDER,
            lambda r: rs.NAMES[r["shipping_address"]["country"]],
            lambda r: r["shipping_address"]["postcode"],
            ("phone",),
        ),
    )
    for name, schema, country, postcode, phones in cases:
        loaded = load_schema(json.dumps(schema).encode(), f"{name}.json")
        plan = compile_plan(
            loaded, parse_rules(loaded.field_tree(), []), {"seed": seed}, record_count=records
        )
        buf = io.BytesIO()
        started = time.perf_counter()
        plan.write("json", buf)
        took = time.perf_counter() - started
        rows = orjson.loads(buf.getvalue())
        flat = [rs.flat(r) for r in rows]
        print(f"{name}: {records:,} records in {took:.1f} s (seed {seed})")
        for path in flat[0]:
            values = [f.get(path) for f in flat]
            leaf = path.rsplit(".", 1)[-1]
            enum = _enum_of(schema, path)
            if enum is not None:
                counts = Counter(values)
                even = len(values) / len(enum)
                print(
                    f"  {path:<28} enum of {len(enum)}: {len(counts)} used, smallest {min(counts.values()) / even:.2f}"
                    f" and largest {max(counts.values()) / even:.2f} of an even share"
                )
            elif leaf in (*rs.PHONE_LIKE, *rs.STREETS, *rs.TEXTS, *rs.PREVIEWED, "email", "iban"):
                line = f"  {path:<28} distinct {rs.distinct_share(values):7.2%}"
                if leaf in rs.PREVIEWED:
                    first = len(set(values[:10])) == 10
                    line += f"  previews with a repeat {rs.windows_with_repeat(values):6.2%}, first preview "
                    line += "no repeat" if first else "REPEATS"
                print(line)
        wrong = [rs.country_agreement(r, country(r), postcode(r), [r[p] for p in phones]) for r in rows]
        agree = sum(not w for w in wrong) / len(rows)
        print(f"  records whose postcode, phone prefix and IBAN follow their country: {agree:.2%}")
        for w in [w for w in wrong if w][:3]:
            print(f"    e.g. {w}")


def _enum_of(schema: dict, path: str) -> list | None:
    node: dict | None = schema
    for part in path.split("."):
        node = (node or {}).get("properties", {}).get(part)
    return None if node is None else node.get("enum")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="entry ids (default: the whole manifest)")
    ap.add_argument("--list", type=int, default=25, help="generic fields listed per schema")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--variety", action="store_true", help="issue 32's variety and country figures instead")
    ap.add_argument("--records", type=int, default=50_000, help="records of each --variety schema")
    ap.add_argument("--seed", type=int, default=32, help="seed of the --variety datasets")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.variety:
        variety(args.records, args.seed)
        return
    from tests.generation.corpus import manifest

    entries = [e for e in manifest() if not args.only or e["id"] in set(args.only)]
    totals: Counter[str] = Counter()
    shares: list[float] = []
    results = []
    for entry in entries:
        r = census(entry)
        results.append({k: (dict(v) if isinstance(v, Counter) else v) for k, v in r.items()})
        if "skipped" in r:
            print(f"{r['id']:<36} skipped: {r['skipped'][:80]}")
            continue
        n = sum(r[b] for b in BUCKETS)
        share = r["semantic"] / n if n else 0.0
        if n:
            shares.append(share)
        totals.update({b: r[b] for b in BUCKETS})
        print(
            f"{r['id']:<36} fields {n:>5}  semantic {r['semantic']:>4} ({share:6.1%})  shaped {r['shaped']:>4}"
            f"  code {r['code']:>4}  generic {r['generic']:>4}  enum {r['enum']:>4}"
        )
        listed = r["generic_fields"].most_common(args.list)
        if listed:
            print("    generic: " + ", ".join(f"{k}" + (f" x{c}" if c > 1 else "") for k, c in listed))
    n = sum(totals[b] for b in BUCKETS)
    print()
    print(f"schemas {len(shares)}, string fields {n} (enum/const left out)")
    for b in BUCKETS:
        print(f"  {b:<9} {totals[b]:>6}  {totals[b] / n if n else 0:6.1%}")
    if shares:
        print(
            f"semantic share: pooled {totals['semantic'] / n:.1%}, mean per schema {sum(shares) / len(shares):.1%}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
