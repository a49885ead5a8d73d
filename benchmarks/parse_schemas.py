"""Parse-time and peak-memory figures for schema uploads (not a test).

Each case runs in a fresh child process: wall time of load_schema + field_tree + schema_repr,
and the child's peak RSS (the RSS after importing the loader is shown as "imports"). Target: < 2 s and < 300 MB per case.

    .venv/bin/python benchmarks/parse_schemas.py
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import resource
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "corpus"
LIMIT = 10 * 1024 * 1024
XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def wide_json_schema(size: int = LIMIT - 4096) -> bytes:
    """One object with as many string/integer properties as fit in `size` bytes."""
    props: dict[str, object] = {}
    used, i = 0, 0
    while used < size - 200:
        prop = {"type": "string", "maxLength": 40, "pattern": "^[a-z]+$"} if i % 2 else {
            "type": "integer", "minimum": 0, "maximum": 999}
        used += len(json.dumps(prop)) + 20
        props[f"field_{i:07d}"] = prop
        i += 1
    return json.dumps({"type": "object", "properties": props}).encode()


def many_types_xsd(size: int = LIMIT - 4096) -> bytes:
    """Named complex types of 10 fields each, gathered 40 per section under one record element."""
    types: list[str] = []
    used, i = 0, 0
    budget = int(size * 0.85)  # sections and the record element add the rest
    while used < budget:
        fields = "".join(f'<xs:element name="f{j}" type="xs:{"string" if j % 3 else "int"}" minOccurs="{j % 2}"/>'
                         for j in range(10))
        text = f'<xs:complexType name="T{i}"><xs:sequence>{fields}</xs:sequence></xs:complexType>'
        types.append(text)
        used += len(text)
        i += 1
    sections = []
    for start in range(0, i, 40):
        elements = "".join(f'<xs:element name="t{k}" type="T{k}" minOccurs="0"/>' for k in range(start, min(i, start + 40)))
        sections.append(f'<xs:complexType name="S{start // 40}"><xs:sequence>{elements}</xs:sequence></xs:complexType>')
    record = "".join(f'<xs:element name="s{k}" type="S{k}"/>' for k in range(len(sections)))
    return (f'<xs:schema {XS}><xs:element name="record"><xs:complexType><xs:sequence>{record}</xs:sequence>'
            f'</xs:complexType></xs:element>{"".join(sections)}{"".join(types)}</xs:schema>').encode()


def _upload(entry: dict[str, object]) -> bytes:
    files = [Path(str(f)) for f in entry["files"]]  # type: ignore[attr-defined]
    if len(files) == 1:
        return (CORPUS / files[0]).read_bytes()
    common = Path(os.path.commonpath([str(f.parent) for f in files]))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in files:
            zf.write(CORPUS / f, str(f.relative_to(common)))
    return buf.getvalue()


def largest_corpus(kind: str) -> tuple[str, bytes]:
    """The corpus entry of `kind` with the most bytes among those the loader accepts."""
    from app.generation.errors import GenerationError
    from app.generation.schema.loader import load_schema

    manifest = json.loads((CORPUS / "manifest.json").read_text())
    entries = [e for e in manifest if e["type"] == kind]
    entries.sort(key=lambda e: -sum((CORPUS / f).stat().st_size for f in e["files"]))
    for entry in entries:
        content = _upload(entry)
        try:
            load_schema(content)
        except GenerationError:
            continue
        return entry["id"], content
    raise SystemExit(f"no {kind} corpus entry loads")


def _peak_rss_mib() -> float:
    """This process's peak resident set (VmHWM; unlike ru_maxrss it is not inherited on fork)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(content: bytes, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from app.generation.errors import GenerationError
    from app.generation.schema.loader import load_schema
    from app.generation.schema.repr import schema_repr

    baseline = _peak_rss_mib()
    started = time.perf_counter()
    try:
        loaded = load_schema(content)
        loaded.field_tree()
        fields = loaded.field_count
        schema_repr(loaded)
        outcome = f"ok, {fields} leaf fields"
    except GenerationError as exc:
        outcome = f"refused: {exc.detail[:90]}"
    elapsed = time.perf_counter() - started
    peak = _peak_rss_mib()
    queue.put((elapsed, baseline, peak, outcome))


def measure(content: bytes) -> tuple[float, float, float, str]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_run, args=(content, queue))
    proc.start()
    result = queue.get(timeout=600)
    proc.join()
    return result


def main() -> None:
    from app.generation.schema.loader import load_schema

    load_schema(b'{"type": "string"}')  # warm imports in the parent only; children start cold
    cases: list[tuple[str, bytes]] = []
    if (CORPUS / "manifest.json").exists():
        for kind in ("json_schema", "xsd"):
            name, content = largest_corpus(kind)
            cases.append((f"largest corpus {kind}: {name}", content))
    cases.append(("generated wide JSON Schema", wide_json_schema()))
    cases.append(("generated many-types XSD (10 MB)", many_types_xsd()))
    cases.append(("generated many-types XSD (0.45 MB, just under the cap)", many_types_xsd(470_000)))
    print(f"{'case':56} {'bytes':>10} {'time s':>7} {'RSS MiB':>8} {'imports':>8}  outcome")
    for name, content in cases:
        elapsed, baseline, peak, outcome = measure(content)
        print(f"{name:56} {len(content):>10} {elapsed:>7.2f} {peak:>8.0f} {baseline:>8.0f}  {outcome}")


if __name__ == "__main__":
    main()
