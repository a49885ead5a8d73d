"""Memory benchmark: the resident size of `tdg serve` after many large schema uploads.

Starts the real `tdg serve` (a subprocess on a free loopback port, a fresh SQLite file and data
directory in a temporary directory), logs in as the bootstrap SuperUser, uploads UPLOADS distinct
JSON Schemas of about SIZE bytes each (valid draft 2020-12 documents, every one different: its
own property names, types, bounds, patterns, enums and descriptions) from CONCURRENCY clients at
once as multipart files, then leaves the server idle for IDLE seconds. Prints the server's VmRSS
(/proc/<pid>/status) before the first upload, the highest seen while uploading (sampled every
50 ms), and after the idle wait, with VmHWM (the kernel's own peak) beside it; and apart, the
resident size of its child processes (the generation pool, the problems-at-upload probe).

Target: under 300 MB after the idle wait.

    .venv/bin/python benchmarks/memory.py                       # 400 x 1 MB, 4 clients
    .venv/bin/python benchmarks/memory.py --uploads 100         # a quick run
    TDG_SCHEMA_CACHE_BYTES=0 .venv/bin/python benchmarks/memory.py   # the server's environment is
                                                                 # this one's: try settings here
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx

TDG = Path(sys.executable).with_name("tdg")
PASSWORD = "bench-root-password-1"
TARGET_MB = 300.0
_WORDS = [
    "order",
    "customer",
    "invoice",
    "amount",
    "status",
    "region",
    "account",
    "ledger",
    "parcel",
    "route",
    "sensor",
    "reading",
    "batch",
    "sample",
    "tariff",
    "policy",
    "claim",
    "vessel",
    "cargo",
    "berth",
    "shift",
    "badge",
    "token",
]


def schema_document(seed: int, size: int) -> bytes:
    """A valid JSON Schema of about `size` bytes, unlike any other seed's: an object whose
    properties are strings, numbers, enums and small nested objects."""
    rng = random.Random(seed)
    properties: dict[str, object] = {}
    doc: dict[str, object] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://bench.example.com/s{seed}.json",
        "title": f"bench {seed}",
        "type": "object",
        "properties": properties,
    }
    used = 200
    i = 0
    while used < size:
        name = f"{rng.choice(_WORDS)}_{seed}_{i}"
        kind = rng.randrange(5)
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(4, 16)))
        prop: dict[str, object]
        if kind == 0:
            prop = {"type": "string", "minLength": rng.randrange(1, 5), "maxLength": rng.randrange(8, 80)}
        elif kind == 1:
            low = rng.randrange(-1000, 1000)
            prop = {"type": "integer", "minimum": low, "maximum": low + rng.randrange(1, 10_000)}
        elif kind == 2:
            prop = {
                "enum": [f"{rng.choice(_WORDS)}-{rng.randrange(10**6)}" for _ in range(rng.randrange(2, 8))]
            }
        elif kind == 3:
            prop = {
                "type": "string",
                "pattern": f"^[A-Z]{{{rng.randrange(1, 4)}}}-[0-9]{{{rng.randrange(2, 7)}}}$",
            }
        else:
            prop = {
                "type": "object",
                "properties": {
                    f"{rng.choice(_WORDS)}_{j}": {"type": rng.choice(["string", "number", "boolean"])}
                    for j in range(rng.randrange(1, 6))
                },
            }
        prop["description"] = text
        properties[name] = prop
        used += len(json.dumps({name: prop})) + 1
        i += 1
    doc["required"] = sorted(properties)[: max(1, len(properties) // 10)]
    return json.dumps(doc).encode()


def rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of `pid` in KiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def rss_parts_kib(pid: int) -> dict[str, int]:
    """Resident KiB of `pid` by kind of mapping (/proc/<pid>/smaps): the brk heap (glibc's main
    arena), anonymous mappings (pymalloc's 1 MiB arenas, glibc's thread arenas, large mmapped
    blocks) and file-backed ones (the interpreter, libraries)."""
    parts = {"heap": 0, "anon": 0, "file": 0}
    kind = "anon"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if len(head) >= 5 and "-" in head[0] and ":" not in head[0]:
            name = head[5] if len(head) > 5 else ""
            kind = "heap" if name == "[heap]" else ("file" if name.startswith("/") else "anon")
        elif head and head[0] == "Rss:":
            parts[kind] += int(head[1])
    return parts


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (the generation pool, the problems probe's processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def children_rss_kib(pid: int) -> tuple[int, int]:
    """(how many, total VmRSS in KiB) of the processes below `pid`."""
    total = count = 0
    for child in descendants(pid):
        try:
            total += rss_kib(child)[0]
            count += 1
        except (OSError, KeyError):
            pass
    return count, total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(work: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "TDG_DATABASE_URL": f"sqlite:///{work / 'tdg.db'}",
        "TDG_DATA_DIR": str(work / "data"),
        "TDG_ADMIN_USERNAME": "root",
        "TDG_ADMIN_PASSWORD": PASSWORD,
        "TDG_WORKERS": "1",
        "TDG_SECRET_KEY": "bench-secret-key-" + "x" * 32,
    }
    log = (work / "serve.log").open("wb")
    proc = subprocess.Popen(
        [str(TDG), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"tdg serve exited:\n{(work / 'serve.log').read_text()[-3000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("tdg serve did not answer within 90 s")
            time.sleep(0.2)
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--uploads", type=int, default=400)
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per schema (about)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds idle before the last reading")
    args = parser.parse_args()

    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tdg-memory-") as tmp, serve(Path(tmp), port) as proc:
        base = f"http://127.0.0.1:{port}/api/v1"
        token = httpx.post(
            base + "/users/token", data={"username": "root", "password": PASSWORD}, timeout=30
        ).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        time.sleep(2.0)  # the start-up's own allocations settle
        before, _ = rss_kib(proc.pid)
        children_before = children_rss_kib(proc.pid)
        peak = before
        children_peak = children_before[1]
        done = threading.Event()

        def sample() -> None:
            nonlocal peak, children_peak
            while not done.is_set():
                peak = max(peak, rss_kib(proc.pid)[0])
                children_peak = max(children_peak, children_rss_kib(proc.pid)[1])
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        sizes: list[int] = []
        failures: list[str] = []

        def upload(client: httpx.Client, seed: int) -> None:
            body = schema_document(seed, args.size)
            r = client.post(
                "/schemas",
                headers=headers,
                files={"file": (f"s{seed}.schema.json", body)},
                data={"name": f"bench {seed}"},
            )
            if r.status_code != 201:
                failures.append(f"{r.status_code} {r.text[:200]}")
            sizes.append(len(body))

        started = time.perf_counter()
        with httpx.Client(base_url=base, timeout=300) as client, ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda seed: upload(client, seed), range(args.uploads)))
        elapsed = time.perf_counter() - started
        done.set()
        sampler.join()
        time.sleep(args.idle)
        after, hwm = rss_kib(proc.pid)
        parts = rss_parts_kib(proc.pid)
        children_after = children_rss_kib(proc.pid)

    mb = 1024.0
    print(
        f"uploads: {args.uploads} x {sum(sizes) / max(1, len(sizes)) / 1e6:.2f} MB "
        f"({args.concurrency} clients, {elapsed:.1f} s, {len(failures)} failed)"
    )
    for failure in failures[:5]:
        print(f"  failed: {failure}")
    print(f"RSS before: {before / mb:8.1f} MB")
    print(f"RSS peak:   {peak / mb:8.1f} MB   (VmHWM {hwm / mb:.1f} MB)")
    print(
        f"RSS after:  {after / mb:8.1f} MB   ({args.idle:.0f} s idle; target < {TARGET_MB:.0f} MB: "
        f"{'met' if after / mb < TARGET_MB else 'MISSED'})"
    )
    print("            " + ", ".join(f"{kind} {kib / mb:.1f} MB" for kind, kib in parts.items()))
    print(
        f"child processes (generation pool, problems probe; not in the figures above): "
        f"before {children_before[0]} with {children_before[1] / mb:.1f} MB, peak {children_peak / mb:.1f} MB, "
        f"after {children_after[0]} with {children_after[1] / mb:.1f} MB"
    )


if __name__ == "__main__":
    main()
