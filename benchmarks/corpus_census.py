"""Corpus census (not a test): does every corpus schema generate N records in every format?

    python benchmarks/corpus_census.py [-n 200] [--timeout 150] [--only ID ...] [--jobs 1]

Each entry of tests/corpus/manifest.json runs in its own subprocess with a wall-clock limit
(`tests.generation.corpus.generate_entry`: load, compile, write csv/json/ndjson/xml/sql with the
guard checking every record in json and xml). Per schema it prints the status, the wall and CPU
seconds of the child and the reason, then the share ok / (ok + failed); `rejected` (the loader
refused the upload) does not count, `timeout` counts as failed. Each schema that does not generate
is then checked at upload (`app.generation.problems.root_problems`, what `/repr` and the upload
answer list, in a child with the same limit) and its problems printed: "reported at upload" or
"NOT reported". Run it with `nice -n 10` on a shared machine: CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(entry_id: str, records: int) -> None:
    """Runs in the subprocess: one entry, one JSON line on stdout."""
    sys.path.insert(0, str(ROOT))
    from tests.generation.corpus import generate_entry, manifest

    entry = next(e for e in manifest() if e["id"] == entry_id)
    c0 = time.process_time()
    status, reason = generate_entry(entry, records=records)
    print(json.dumps({"status": status, "reason": reason, "cpu": time.process_time() - c0}))


def child_problems(entry_id: str) -> None:
    """Runs in the subprocess: the problems listed at upload for one entry, one JSON line."""
    sys.path.insert(0, str(ROOT))
    from app.generation.problems import root_problems
    from app.generation.schema.loader import load_schema
    from tests.generation.corpus import manifest, schema_bytes

    content, name = schema_bytes(next(e for e in manifest() if e["id"] == entry_id))
    print(json.dumps(root_problems(load_schema(content, name))))


def upload_problems(entry_id: str, timeout: float) -> str:
    try:
        proc = subprocess.run([sys.executable, __file__, "--child-problems", entry_id],
                              capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, ValueError):
        return "NOT reported (the upload check did not answer)"
    if not found:
        return "NOT reported (no problem listed)"
    listed = "; ".join(f"{p['path'] or '(root)'}: {p['reason']}" + (" [blocking]" if p["blocking"] else "")
                       for p in found)
    return f"reported at upload: {listed}"


def run_one(entry_id: str, records: int, timeout: float) -> dict:
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", entry_id, "-n", str(records)],
                              capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"id": entry_id, "status": "timeout", "seconds": time.perf_counter() - t0, "cpu": None,
                "reason": f"over {timeout:.0f} s"}
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = proc.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"id": entry_id, "status": "crashed", "seconds": seconds,
                "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                "reason": f"exit {proc.returncode}: {tail}"}
    return {"id": entry_id, "seconds": seconds, **result}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--records", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds per schema (wall clock)")
    ap.add_argument("--only", nargs="*", help="entry ids (default: the whole manifest)")
    ap.add_argument("--jobs", type=int, default=1, help="schemas run at once (the machine is shared)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-problems", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.records)
        return
    if args.child_problems:
        child_problems(args.child_problems)
        return
    sys.path.insert(0, str(ROOT))
    from tests.generation.corpus import manifest

    ids = [e["id"] for e in manifest()]
    if args.only:
        unknown = sorted(set(args.only) - set(ids))
        if unknown:
            ap.error(f"unknown entries: {', '.join(unknown)}")
        ids = [i for i in ids if i in set(args.only)]
    t0 = time.perf_counter()
    results: list[dict] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda i: run_one(i, args.records, args.timeout), ids):
            cpu = "-" if r.get("cpu") is None else f"{r['cpu']:.1f}"
            reason = (r.get("reason") or "").replace("\n", " ")[:240]
            print(f"{r['id']:32} {r['status']:9} {r['seconds']:7.1f}s wall {cpu:>7}s cpu  {reason}", flush=True)
            results.append(r)
    ok = [r for r in results if r["status"] == "ok"]
    rejected = [r for r in results if r["status"] == "rejected"]
    counted = len(results) - len(rejected)
    print(f"\n{len(ok)}/{counted} loader-accepted schemas generate {args.records} records in every format "
          f"({100 * len(ok) / max(1, counted):.1f}%); {len(rejected)} rejected by the loader; "
          f"{time.perf_counter() - t0:.0f} s")
    for r in results:
        if r["status"] not in ("ok", "rejected"):
            print(f"  not generating: {r['id']} ({r['status']}): {(r.get('reason') or '')[:300]}")
            print(f"    {upload_problems(r['id'], args.timeout)[:400]}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
