"""Real schemas: records/s, MB/s and peak RSS of `tdg generate` on large third-party schemas from
the corpus (tests/corpus), next to json-schema-faker on the JSON Schemas when it is installed.

Each cell is one `tdg generate` subprocess (the whole command: loading, compiling, writing, the
guard), waited for with os.wait4, so its CPU seconds and peak RSS are its own. The load average
is printed beside each row: the machines this runs on are shared, and wall time follows the load
(CPU seconds much less so).

    .venv/bin/python benchmarks/real_schemas.py                       # 1,000 and 10,000 records
    .venv/bin/python benchmarks/real_schemas.py --records 1000 --only iso20022-pain.001.001.09
    .venv/bin/python benchmarks/real_schemas.py --jsf /tmp/jsf        # a folder where
        # `npm install json-schema-faker` ran: its node_modules/json-schema-faker is used
    .venv/bin/python benchmarks/real_schemas.py --vega-lite package/build/vega-lite-schema.json
        # after `npm pack vega-lite && tar xzf vega-lite-*.tgz`: the Vega-Lite JSON Schema
        # (1.9 MB, recursive) is not in the corpus, whose entries pass `check_schema` and
        # Vega-Lite's `$ref`s to `#/definitions/Dict<...>` do not

Targets (issue 34): peak RSS under 300 MiB for any schema and record count, at least 10 MB/s of
XML on an ISO 20022 message, never slower than json-schema-faker on a real JSON Schema.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
TDG = Path(sys.executable).with_name("tdg")

# (corpus id, output format): an ISO 20022 payment initiation, a recursive SBOM XSD, Vega 5's
# JSON Schema (400 KB, recursive marks and signals); `--vega-lite` adds Vega-Lite's
SCHEMAS = [
    ("iso20022-pain.001.001.09", "xml"),
    ("cyclonedx-bom-1.6-xsd", "xml"),
    ("vega-v5", "json"),
    ("ubl-2.1-invoice", "xml"),  # 14 files over two folders, 118,000 string fields compiled
]

# json-schema-faker writing the same JSON array tdg writes; run with node from a folder whose
# node_modules holds json-schema-faker (an ES module since 0.6)
JSF_SCRIPT = """
import fs from 'node:fs';
import * as mod from 'json-schema-faker';
const jsf = mod.JSONSchemaFaker || mod.default || mod;
const [schemaPath, n, out] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
if (jsf.option) jsf.option({ failOnInvalidTypes: false, failOnInvalidFormat: false });
const fd = fs.openSync(out, 'w');
fs.writeSync(fd, '[\\n');
for (let i = 0; i < Number(n); i++) {
  let rec = jsf.generate(schema);
  if (rec && typeof rec.then === 'function') rec = await rec;
  fs.writeSync(fd, (i ? ',\\n' : '') + JSON.stringify(rec));
}
fs.writeSync(fd, '\\n]\\n');
fs.closeSync(fd);
"""


@dataclass
class Cell:
    tool: str
    schema: str
    fmt: str
    records: int
    wall: float
    cpu: float
    rss_mib: float
    size: int
    load: float
    ok: bool

    def row(self) -> str:
        mb = self.size / 1e6
        return (
            f"{self.tool:5} {self.schema:26} {self.fmt:5} {self.records:>7,} "
            f"{self.wall:8.1f} {self.cpu:8.1f} {self.records / self.wall:9.1f} {self.records / self.cpu:9.1f} "
            f"{mb / self.wall:7.2f} {mb / self.cpu:7.2f} {self.rss_mib:8.0f} {mb:8.1f} {self.load:5.1f}"
            + ("" if self.ok else "  FAILED")
        )


HEADER = (
    f"{'tool':5} {'schema':26} {'fmt':5} {'records':>7} {'wall s':>8} {'CPU s':>8} {'rec/s':>9} "
    f"{'rec/CPUs':>9} {'MB/s':>7} {'MB/CPUs':>7} {'RSS MiB':>8} {'MB':>8} {'load':>5}"
)


EXTRA: dict[str, Path] = {}  # schemas given on the command line, by name


def schema_path(name: str, tmp: Path) -> Path:
    """The schema `tdg generate` reads: the main file, or for an entry whose files are not all in
    the main file's folder (UBL's maindoc/ imports ../common/) a zip of them in `tmp`."""
    if name in EXTRA:
        return EXTRA[name]
    for e in json.loads((CORPUS / "manifest.json").read_text()):
        if e["id"] != name:
            continue
        main = CORPUS / str(e["path"])
        files = [CORPUS / str(f) for f in e["files"]]
        if all(f.parent == main.parent for f in files):
            return main
        root = Path(os.path.commonpath(files))
        out = tmp / f"{name}.zip"
        with zipfile.ZipFile(out, "w") as zf:
            for f in files:
                zf.write(f, f.relative_to(root).as_posix())
        return out
    raise SystemExit(f"{name} is not in tests/corpus/manifest.json")


def measure(cmd: list[str], out: Path, timeout: float) -> tuple[float, float, float, bool]:
    """(wall seconds, CPU seconds, peak RSS MiB, exited 0) of one subprocess."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.05)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    ok = proc.returncode == 0 and out.exists()
    if not ok and proc.stderr is not None:
        sys.stderr.write(proc.stderr.read().decode(errors="replace")[-2000:])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, ok


def run_tdg(corpus_id: str, fmt: str, records: int, tmp: Path, timeout: float) -> Cell:
    path = schema_path(corpus_id, tmp)
    out = tmp / f"tdg-{corpus_id}-{records}.{fmt}"
    cmd = [str(TDG), "generate", str(path), "-n", str(records), "-f", fmt, "-o", str(out), "--seed", "7"]
    load = os.getloadavg()[0]
    wall, cpu, rss, ok = measure(cmd, out, timeout)
    size = out.stat().st_size if out.exists() else 0
    out.unlink(missing_ok=True)
    return Cell("tdg", corpus_id, fmt, records, wall, cpu, rss, size, load, ok)


def run_jsf(corpus_id: str, records: int, jsf_dir: Path, tmp: Path, timeout: float) -> Cell:
    path = schema_path(corpus_id, tmp)
    script = jsf_dir / "tdg_bench_jsf.mjs"
    script.write_text(JSF_SCRIPT)
    out = tmp / f"jsf-{corpus_id}-{records}.json"
    load = os.getloadavg()[0]
    wall, cpu, rss, ok = measure(["node", str(script), str(path), str(records), str(out)], out, timeout)
    size = out.stat().st_size if out.exists() else 0
    out.unlink(missing_ok=True)
    return Cell("jsf", corpus_id, "json", records, wall, cpu, rss, size, load, ok)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", default="1000,10000", help="comma-separated record counts")
    parser.add_argument("--only", default="", help="comma-separated corpus ids (default: all)")
    parser.add_argument("--jsf", type=Path, default=None, help="folder with node_modules/json-schema-faker")
    parser.add_argument("--vega-lite", type=Path, default=None, help="vega-lite-schema.json (npm vega-lite)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per cell before it is killed")
    args = parser.parse_args()
    counts = [int(x) for x in args.records.split(",") if x]
    schemas = list(SCHEMAS)
    if args.vega_lite is not None:
        EXTRA["vega-lite"] = args.vega_lite.resolve()
        schemas.append(("vega-lite", "json"))
    wanted = {x for x in args.only.split(",") if x}
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for corpus_id, fmt in schemas:
            if wanted and corpus_id not in wanted:
                continue
            for n in counts:
                print(run_tdg(corpus_id, fmt, n, tmp, args.timeout).row(), flush=True)
                if args.jsf is not None and fmt == "json":
                    print(run_jsf(corpus_id, n, args.jsf, tmp, args.timeout).row(), flush=True)


if __name__ == "__main__":
    main()
