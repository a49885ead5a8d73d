"""Coverage set sizes (not a test): `each` beside the largest single domain, `pairwise` beside
allpairspy's set for the same factors (allpairspy is in the test extra).

    .venv/bin/python benchmarks/coverage.py [SCHEMA ...]

Per schema: targets, covered, unreachable; `each` records and the largest domain (values of one
enum, boolean or choice); the pairwise factors, our pairwise records, the IPOG rows alone, and
allpairspy's rows for the same factors without constraints (it knows nothing of fields that exist
only inside a branch or an optional parent) and with them as a filter (where it may leave pairs
uncovered: counted), plus the seconds each set took.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT = [
    "tests/corpus/json/angular-component.json",
    "tests/corpus/json/ocpp-v201-TransactionEventRequest.json",
    "tests/corpus/json/cfn-s3-bucket.json",
    "tests/corpus/json/readthedocs.json",
    "tests/corpus/xsd/metalink-3.0.xsd",
    "tests/corpus/xsd/iso20022-pain.002.001.03.xsd",
]


def main(paths: list[str]) -> None:
    from allpairspy import AllPairs

    from app.generation.coverage import compile_coverage
    from app.generation.coverage.pairwise import ipog, pairs_missed
    from app.generation.coverage.sets import factors_of
    from app.generation.coverage.targets import compatible
    from app.generation.schema.files import load_schema_path

    print(
        f"{'schema':42} {'targets':>7} {'covered':>7} {'each':>5} {'domain':>6} {'s':>5} | "
        f"{'factors':>7} {'pairs':>6} {'pairwise':>8} {'ipog':>5} {'allpairspy':>10} "
        f"{'+filter':>7} {'missed':>6} {'s':>5}"
    )
    for path in paths:
        loaded = load_schema_path(ROOT / path)
        t0 = time.perf_counter()
        _, each = compile_coverage(loaded, [], {"seed": 1}, mode="each", record_count=1)
        t1 = time.perf_counter()
        _, pair = compile_coverage(loaded, [], {"seed": 1}, mode="pairwise", record_count=1)
        t2 = time.perf_counter()
        rep = each.report()
        domains = Counter(
            (t.pointer, t.kind) for t in each.targets if t.kind in ("enum", "boolean", "branch")
        )
        largest = max(domains.values(), default=1)
        factors = factors_of([t for t in pair.targets if t.kind != "pair"])
        sizes = [len(f.levels) for f in factors]

        def ok(a: int, la: int, b: int, lb: int, factors: list = factors) -> bool:
            pa, pb = factors[a].levels[la].pins, factors[b].levels[lb].pins
            return pa is not None and pb is not None and compatible(pa, pb)

        rows = ipog(sizes, ok)
        if len(sizes) >= 2:
            plain = len(list(AllPairs([list(range(s)) for s in sizes])))
            params = [[(f, lv) for lv in range(s)] for f, s in enumerate(sizes)]

            def keep(row: list[tuple[int, int]], ok: Callable[..., bool] = ok) -> bool:
                return all(ok(a[0], a[1], b[0], b[1]) for i, a in enumerate(row) for b in row[i + 1 :])

            filtered = [[lv for _, lv in r] for r in AllPairs(params, filter_func=keep)]
            fsize, missed = len(filtered), pairs_missed(filtered, sizes, ok)
        else:
            plain, fsize, missed = max(sizes, default=0), max(sizes, default=0), 0
        pairs = sum(1 for t in pair.targets if t.kind == "pair")
        print(
            f"{Path(path).name[:42]:42} {rep['total']:7} {rep['covered']:7} {each.size:5} {largest:6} "
            f"{t1 - t0:5.1f} | {len(sizes):7} {pairs:6} {pair.size:8} {len(rows):5} {plain:10} "
            f"{fsize:7} {missed:6} {t2 - t1:5.1f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
