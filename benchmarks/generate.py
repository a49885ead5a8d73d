"""Generation benchmark (not a test): our engine vs the plain Faker per-row loop, same machine, same run.

    python benchmarks/generate.py [--quick] [--flat-memory] [--rounds R] [--faker-records N]

For the benchmark schemas (/work/shared/bench/customer_order.schema.json and .xsd) every format
is generated at 100,000 (and, without --quick, 1,000,000) records, each run in a fresh
subprocess so its peak RSS is its own. The Faker loop (/work/shared/bench/peers/gen_faker.py)
writes CSV in the same run. This kind of machine changes speed by up to 2-3x within a minute
(seen here: the Faker loop at 813 and at 2,284 rec/s in one 2-minute run), so one timing of each
says little: the whole sequence of cells runs `--rounds` times with the Faker loop timed between
every two cells; a cell's ratio in one round is its records/s against the mean of the two Faker
timings beside it, and the table shows the median of those paired ratios (and the best rate).
Validity: a 2,000-record sample is checked with jsonschema (the schema's draft + format
checker) and with xmlschema (XSD). `--flat-memory` also writes 10,000,000 records to CSV and
reports the peak RSS. Rates exclude the one-time set-up (schema compilation and locale
vocabularies, shown as "setup s"), as the Faker loop's own timing excludes `Faker()`; "cpu x"
is the same paired ratio on process CPU time.

    python benchmarks/generate.py --end-to-end [--records N] [--rounds R] [--formats csv,json]
                                  [--jobs 1,2]

End to end (issue 20): the whole `tdg generate -n N` command in a fresh process, start-up
included (interpreter, imports, schema compilation, vocabularies from their cache), against the
Faker loop in the same format (csv against its csv, json against its json; the other formats
against its csv) timed beside it, N = 200,000 by default. The Faker loop's rate is its own
in-process timing, its start-up left out, which favours it. Targets: 60x in csv, 40x in json.
`--jobs 1,2` runs each cell with `tdg generate -j 1` and `-j 2` one after the other in each round
and prints the paired wall speed-up and CPU ratio of each -j against the first, beside J
independent `--part K/J` processes run at once (what the machine gives J processes that share
nothing: the ceiling for `-j J`), with the machine's load (wall figures from a machine busy with
other work say little: read the load and the parts' figure).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# ../shared/bench beside the repository, else the copies kept with the tests (tests/fixtures)
BENCH = next(p for p in (Path(__file__).resolve().parents[1].parent / "shared" / "bench",
                         Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bench")
             if (p / "customer_order.xsd").exists())
SCHEMAS = [("json", BENCH / "customer_order.schema.json", None),
           ("xsd", BENCH / "customer_order.xsd", "customer_orders/customer_order")]
FORMATS = ["csv", "ndjson", "json", "sql", "xml"]
TARGETS = {"csv": 60, "ndjson": 60, "json": 40, "sql": 30, "xml": 20}


def worker(schema: str, root: str, fmt: str, n: int, out: str) -> None:
    """Runs in a child process: generate and print timing as JSON."""
    sys.path.insert(0, str(ROOT))
    from app.generation.plan import compile_plan
    from app.generation.schema.loader import load_schema

    path = Path(schema)
    loaded = load_schema(path.read_bytes(), path.name)
    params = {"seed": 1, **({"root": root} if root != "-" else {})}
    t_compile = time.perf_counter()
    plan = compile_plan(loaded, [], params, record_count=n)
    # like the Faker loop's own timing (which starts after `Faker()`), the clock starts once the
    # one-time set-up (schema compilation, locale vocabularies) is done; it is reported apart
    t0, c0 = time.perf_counter(), time.process_time()
    with open(out, "wb", buffering=1 << 20) as fh:
        size = plan.write(fmt, fh)
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "bytes": size,
                      "compile": t0 - t_compile}))


def run_child(args: list[str]) -> tuple[str, str, int]:
    """(stdout, stderr, peak RSS in KiB) of a child process; os.wait4 gives that child's own rusage."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode:
        raise RuntimeError(f"child failed: {' '.join(args)}\n{stderr[-2000:]}")
    return stdout, stderr, usage.ru_maxrss


def measure(schema: Path, root: str | None, fmt: str, n: int, tmp: Path) -> dict:
    out = tmp / f"out.{fmt}"
    stdout, _, rss = run_child([sys.executable, __file__, "--worker", str(schema), root or "-", fmt, str(n),
                                str(out)])
    res = json.loads(stdout.strip().splitlines()[-1])
    out.unlink(missing_ok=True)
    return {**res, "rss_mib": rss / 1024, "rate": n / res["seconds"], "cpu_rate": n / res["cpu"]}


def _faker_child(n: int, out: Path, fmt: str = "csv") -> tuple[float, float, int]:
    """(in-process seconds, child CPU seconds, peak RSS KiB) of one Faker-loop run."""
    t0 = time.perf_counter()
    before = os.times()
    _, err, rss = run_child([sys.executable, str(BENCH / "peers" / "gen_faker.py"), str(n), str(out), fmt])
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    m = re.search(r"in ([0-9.]+) s", err)
    return (float(m.group(1)) if m else time.perf_counter() - t0), cpu, rss


def faker_loop(n: int, tmp: Path, fmt: str = "csv") -> dict:
    out = tmp / f"faker.{fmt}"
    seconds, cpu, rss = _faker_child(n, out, fmt)
    size = out.stat().st_size
    # CPU rate: subtract the interpreter and Faker start-up, measured with a 1-record run
    _, cpu_startup, _ = _faker_child(1, out, fmt)
    out.unlink(missing_ok=True)
    return {"seconds": seconds, "bytes": size, "rss_mib": rss / 1024, "rate": n / seconds,
            "cpu_rate": n / max(cpu - cpu_startup, 1e-9)}


def validity(n: int = 2000) -> tuple[int, int]:
    """(invalid JSON Schema records, invalid XSD records) in an n-record sample of each."""
    sys.path.insert(0, str(ROOT))
    import orjson
    import xmlschema
    from jsonschema.validators import validator_for

    from app.generation.plan import compile_plan
    from app.generation.schema.loader import load_schema

    (_, js_path, _), (_, xsd_path, xsd_root) = SCHEMAS
    schema = json.loads(js_path.read_bytes())
    cls = validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    plan = compile_plan(load_schema(js_path.read_bytes(), js_path.name), [], {"seed": 99}, record_count=n,
                        use_schema_validator=False)
    buf = io.BytesIO()
    plan.write("json", buf)
    bad_json = sum(not validator.is_valid(r) for r in orjson.loads(buf.getvalue()))
    xsd = xmlschema.XMLSchema10(str(xsd_path))
    plan = compile_plan(load_schema(xsd_path.read_bytes(), xsd_path.name), [], {"seed": 99, "root": xsd_root},
                        record_count=n, use_schema_validator=False)
    buf = io.BytesIO()
    plan.write("xml", buf)
    records = buf.getvalue().decode().splitlines()[2:-1]
    bad_xml = sum(not xsd.is_valid(f"<customer_orders>{r}</customer_orders>") for r in records)
    return bad_json, bad_xml


TDG = Path(sys.executable).with_name("tdg")


def tdg_run(schema: Path, root: str | None, fmt: str, n: int, tmp: Path, jobs: int = 1) -> dict:
    """One whole `tdg generate -j JOBS` process: wall and CPU seconds (its forked processes' CPU
    included) from its start to its exit."""
    out = tmp / f"tdg.{fmt}"
    args = [str(TDG), "generate", str(schema), "-n", str(n), "-f", fmt, "-o", str(out), "--seed", "1",
            "-j", str(jobs)]
    before, t0 = os.times(), time.perf_counter()
    run_child(args + (["--root", root] if root else []))
    seconds, after = time.perf_counter() - t0, os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    out.unlink(missing_ok=True)
    return {"seconds": seconds, "cpu": cpu, "rate": n / seconds, "cpu_rate": n / cpu}


def tdg_parts_run(schema: Path, root: str | None, fmt: str, n: int, tmp: Path, parts: int) -> dict:
    """`tdg generate -j 1 --part K/PARTS` for every K at once, independent processes: what the
    machine gives PARTS processes with nothing shared, the reference for `-j PARTS`."""
    args = [[str(TDG), "generate", str(schema), "-n", str(n), "-f", fmt, "-o", str(tmp / f"part{k}.{fmt}"),
             "--seed", "1", "-j", "1", "--part", f"{k}/{parts}", *(["--root", root] if root else [])]
            for k in range(1, parts + 1)]
    before, t0 = os.times(), time.perf_counter()
    procs = [subprocess.Popen(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT) for a in args]
    if any(p.wait() for p in procs):
        raise RuntimeError(f"a part failed: {args}")
    seconds, after = time.perf_counter() - t0, os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    for k in range(1, parts + 1):
        (tmp / f"part{k}.{fmt}").unlink(missing_ok=True)
    return {"seconds": seconds, "cpu": cpu}


def load() -> str:
    """The machine's load averages (1, 5, 15 min): this machine is shared, figures need them beside."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def end_to_end(n: int, rounds: int, formats: list[str], faker_records: int, jobs: list[int]) -> None:
    """`tdg generate -n N -j J` whole processes against the Faker loop timed on either side of each
    (every J of `jobs` in turn, so the runs of one cell with each J are paired in time)."""
    peer = {fmt: fmt if fmt in ("csv", "json") else "csv" for fmt in formats}
    cells = [(label, schema, root, fmt) for label, schema, root in SCHEMAS for fmt in formats]
    ratios: dict[tuple[str, str, int], list[tuple[float, float, dict]]] = {}
    print(f"load before: {load()} ({os.cpu_count()} cores)", flush=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for _label, schema, root, fmt in cells:  # fills the vocabulary cache, as any earlier run would
            tdg_run(schema, root, fmt, 1, tmp)
        for round_no in range(1, rounds + 1):
            for label, schema, root, fmt in cells:
                for j in jobs:
                    before = faker_loop(faker_records, tmp, peer[fmt])
                    r = tdg_run(schema, root, fmt, n, tmp, j)
                    after = faker_loop(faker_records, tmp, peer[fmt])
                    faker = (before["rate"] + after["rate"]) / 2
                    faker_cpu = (before["cpu_rate"] + after["cpu_rate"]) / 2
                    r["load"] = os.getloadavg()[0]
                    ratios.setdefault((label, fmt, j), []).append((r["rate"] / faker, r["cpu_rate"] / faker_cpu, r))
                    if j > 1:
                        r["parts"] = tdg_parts_run(schema, root, fmt, n, tmp, j)
                    print(f"  round {round_no}/{rounds}: {label} {fmt} -j {j}: tdg generate -n {n:,} in "
                          f"{r['seconds']:.2f} s, {r['cpu']:.2f} cpu s ({r['rate']:,.0f} rec/s), Faker "
                          f"{peer[fmt]} loop beside it {faker:,.0f} rec/s -> {r['rate'] / faker:.1f}x "
                          f"(load {r['load']:.1f})", flush=True)
    header = f"{'schema':6} {'format':7} {'jobs':>4} {'wall s':>7} {'cpu s':>6} {'x Faker':>8} {'range':>11} " \
             f"{'target':>7} {'cpu x':>6}"
    print(f"\nend to end: `tdg generate -n {n:,}` whole processes (start-up included), vocabulary cache warm\n")
    print(header)
    print("-" * len(header))
    short = []
    for (label, fmt, j), runs in ratios.items():
        walls = [x for x, _, _ in runs]
        ratio = statistics.median(walls)
        target = TARGETS.get(fmt, 0)
        if ratio < target:
            short.append(f"{label} {fmt} -j {j} ({ratio:.1f}x)")
        print(f"{label:6} {fmt:7} {j:>4} {statistics.median(r['seconds'] for _, _, r in runs):>7.2f} "
              f"{statistics.median(r['cpu'] for _, _, r in runs):>6.2f} {ratio:>8.1f} "
              f"{min(walls):>5.0f}-{max(walls):<5.0f} {target:>6}x "
              f"{statistics.median(c for _, c, _ in runs):>6.1f}")
    print(f"\nmedian of {rounds} paired ratios per cell; cells short of their target: {', '.join(short) or 'none'}")
    if len(jobs) > 1:
        # -j J against -j 1 (the first of `jobs`) in the same round: wall speed-up and CPU cost
        base = jobs[0]
        print(f"\n-j J against -j {base}, paired by round: wall speed-up (t{base}/tJ) and CPU ratio (cpuJ/cpu{base})")
        for label, _schema, _root, fmt in cells:
            for j in jobs[1:]:
                pairs = list(zip(ratios[(label, fmt, base)], ratios[(label, fmt, j)], strict=True))
                speed = [a[2]["seconds"] / b[2]["seconds"] for a, b in pairs]
                cpu = [b[2]["cpu"] / a[2]["cpu"] for a, b in pairs]
                loads = [b[2]["load"] for _, b in pairs]
                parts = [a[2]["seconds"] / b[2]["parts"]["seconds"] for a, b in pairs]
                parts_cpu = [b[2]["parts"]["cpu"] / a[2]["cpu"] for a, b in pairs]
                print(f"  {label:6} {fmt:7} -j {j}: wall x{statistics.median(speed):.2f} "
                      f"({min(speed):.2f}-{max(speed):.2f}), cpu x{statistics.median(cpu):.2f}; "
                      f"{j} independent parts at once: wall x{statistics.median(parts):.2f}, "
                      f"cpu x{statistics.median(parts_cpu):.2f}; 1-min load {min(loads):.1f}-{max(loads):.1f}")
    print(f"load after: {load()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="100,000 records only")
    ap.add_argument("--flat-memory", action="store_true", help="also 10,000,000 records to CSV")
    ap.add_argument("--faker-records", type=int, default=5_000,
                    help="records of each Faker-loop timing (its rate is per record; it runs once per cell)")
    ap.add_argument("--rounds", type=int, default=3, help="times the whole sequence of cells runs (median of the paired ratios)")
    ap.add_argument("--end-to-end", action="store_true",
                    help="whole `tdg generate` processes (start-up included) against the Faker loop")
    ap.add_argument("--records", type=int, default=200_000, help="records of each --end-to-end run")
    ap.add_argument("--formats", default="csv,json", help="formats of the --end-to-end runs")
    ap.add_argument("--jobs", default="1",
                    help="`tdg generate -j` values of the --end-to-end runs, e.g. 1,2 (paired with the first)")
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.end_to_end:
        end_to_end(args.records, args.rounds, args.formats.split(","), args.faker_records,
                   [int(j) for j in args.jobs.split(",")])
        return
    if args.worker:
        schema, root, fmt, n, out = args.worker
        worker(schema, root, fmt, int(n), out)
        return
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    cells = [(label, schema, root, fmt, n) for n in sizes for label, schema, root in SCHEMAS for fmt in FORMATS]
    timings: dict[tuple[str, str, int], list[dict]] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        faker_runs = [faker_loop(args.faker_records, tmp)]
        for round_no in range(1, args.rounds + 1):
            for label, schema, root, fmt, n in cells:
                r = measure(schema, root, fmt, n, tmp)
                faker_runs.append(faker_loop(args.faker_records, tmp))
                # the machine's speed at the time: the Faker timings on either side of this cell
                r["faker"] = (faker_runs[-2]["rate"] + faker_runs[-1]["rate"]) / 2
                r["faker_cpu"] = (faker_runs[-2]["cpu_rate"] + faker_runs[-1]["cpu_rate"]) / 2
                timings.setdefault((label, fmt, n), []).append(r)
                print(f"  round {round_no}/{args.rounds}: {label} {fmt} {n:,}: {r['rate']:,.0f} rec/s, Faker beside "
                      f"it {r['faker']:,.0f} -> {r['rate'] / r['faker']:.1f}x", flush=True)
        rates = [f["rate"] for f in faker_runs]
        print(f"\nFaker per-row loop (csv, {args.faker_records:,} records): {len(rates)} timings from "
              f"{min(rates):,.0f} to {max(rates):,.0f} rec/s (median {statistics.median(rates):,.0f}), "
              f"peak RSS {max(f['rss_mib'] for f in faker_runs):.0f} MiB\n")
        header = f"{'schema':6} {'format':7} {'records':>10} {'best/s':>10} {'MB/s':>7} {'RSS MiB':>8} " \
                 f"{'x Faker':>8} {'range':>11} {'target':>7} {'cpu x':>6} {'setup s':>8}"
        print(header)
        print("-" * len(header))
        short = []
        for (label, fmt, n), runs in timings.items():
            ratios = [r["rate"] / r["faker"] for r in runs]
            ratio = statistics.median(ratios)
            cpu_ratio = statistics.median(r["cpu_rate"] / r["faker_cpu"] for r in runs)
            top = max(runs, key=lambda r: r["rate"])
            if ratio < TARGETS[fmt]:
                short.append(f"{label} {fmt} {n:,} ({ratio:.1f}x)")
            print(f"{label:6} {fmt:7} {n:>10,} {top['rate']:>10,.0f} {top['bytes'] / top['seconds'] / 1e6:>7.1f} "
                  f"{max(r['rss_mib'] for r in runs):>8.0f} {ratio:>8.1f} {min(ratios):>5.0f}-{max(ratios):<5.0f} "
                  f"{TARGETS[fmt]:>6}x {cpu_ratio:>6.1f} {statistics.median(r['compile'] for r in runs):>8.2f}")
        print(f"\nmedian of {args.rounds} paired ratios per cell; cells short of their target: "
              f"{', '.join(short) or 'none'}")
        if args.flat_memory:
            r = measure(SCHEMAS[0][1], None, "csv", 10_000_000, tmp)
            print(f"\nflat memory: 10,000,000 records to csv in {r['seconds']:.0f} s "
                  f"({r['rate']:,.0f} rec/s), peak RSS {r['rss_mib']:.0f} MiB (limit 300)")
    bad_json, bad_xml = validity()
    print(f"\nvalidity: {bad_json} invalid of 2,000 jsonschema records, {bad_xml} invalid of 2,000 XSD records")


if __name__ == "__main__":
    main()
