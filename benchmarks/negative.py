"""Negative generation speed next to valid generation (issue 30), in one process, no service.

    python benchmarks/negative.py [-n RECORDS] [--rates 0.1,1] [--rounds 3] [SCHEMA ...]

For each schema (default: the bench order as JSON Schema and as XSD, /work/shared/bench or
tests/fixtures/bench; an .xsd is written as XML, the format its invalid records are carried in) it
compiles a plan once per rate, then writes N records as NDJSON (XML) to memory: valid (rate 0) and with
each invalid rate, the best of `rounds` runs in CPU time (the process's, so other load on the
machine does not count), and prints records/s and the ratio to valid. The
build (probing each constraint once) is timed apart: it is paid once per dataset."""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.generation.negative.engine import attach_negative  # noqa: E402
from app.generation.plan import compile_plan  # noqa: E402
from app.generation.schema.files import load_schema_path  # noqa: E402

# the bench order as JSON Schema and as XSD (/work/shared/bench, else the copies in tests/fixtures)
DEFAULTS = [
    next(p for p in (ROOT.parent / "shared" / "bench" / name, ROOT / "tests" / "fixtures" / "bench" / name) if p.exists())
    for name in ("customer_order.schema.json", "customer_order.xsd")
]


def run(schema: Path, n: int, rate: float, rounds: int) -> tuple[float, float, int]:
    """(build seconds, best write seconds, labels written)."""
    loaded = load_schema_path(schema)
    fmt = _format(loaded)
    plan = compile_plan(loaded, [], {"seed": 1}, record_count=n)
    t0 = time.perf_counter()
    if rate:
        attach_negative(plan, loaded, rate=rate, formats=(fmt,))
    build = time.perf_counter() - t0
    best, labels = float("inf"), 0
    for _ in range(rounds):
        plan._cache = None  # every round draws its blocks again
        out, lab = io.BytesIO(), io.BytesIO()
        t = time.process_time()
        plan.write(fmt, out, labels=lab)
        best = min(best, time.process_time() - t)
        labels = len(lab.getvalue().splitlines())
    return build, best, labels


def _format(loaded: object) -> str:
    return "xml" if getattr(loaded, "type", None) == "xsd" else "ndjson"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("schemas", nargs="*", type=Path)
    ap.add_argument("-n", type=int, default=20_000)
    ap.add_argument("--rates", default="0.1,1")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rates = [float(r) for r in args.rates.split(",")]
    for schema in args.schemas or DEFAULTS:
        _, valid, _ = run(schema, args.n, 0.0, args.rounds)
        print(f"{schema.name}: {args.n:,} records, {_format(load_schema_path(schema))}")
        print(f"  valid          {args.n / valid:>10,.0f} records/s")
        for rate in rates:
            build, best, labels = run(schema, args.n, rate, args.rounds)
            speed = args.n / best
            print(
                f"  invalid {rate:<6g} {speed:>10,.0f} records/s  {speed * valid / args.n:6.1%} of valid"
                f"  ({labels:,} labels; build {build:.2f} s)"
            )


if __name__ == "__main__":
    main()
