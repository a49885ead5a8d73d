"""`tdg generate --jobs N` and `--part K/N` (issue 34): the records drawn by forked processes, or a
part of them, are the bytes of one process in every format; a failing process or a bad K/N ends
the command with a sentence and no file that looks complete. Byte identity, never a timing."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.generation.cli import generate, register
from app.generation.errors import Unsatisfiable
from app.generation.fanout import WorkerLost
from app.generation.output_formats import FORMAT_NAMES as FORMATS
from app.generation.plan import BLOCK_SIZE, Plan
from tests.paths import BENCH

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "email", "age", "name"],
    "properties": {
        "id": {"type": "integer"},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    },
}
RECORDS = 3 * BLOCK_SIZE + 12  # four blocks, the last a short one


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "s.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def _bytes(schema: Path, out: Path, fmt: str, **options: object) -> bytes:
    _, paths = generate(schema, RECORDS, fmt, str(out), seed=5, **options)  # type: ignore[arg-type]
    assert paths == [out]
    return out.read_bytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_job_count_writes_the_bytes_of_one_process(schema: Path, tmp_path: Path, fmt: str) -> None:
    one = _bytes(schema, tmp_path / f"one.{fmt}", fmt, jobs=1)
    for jobs in (2, 3):
        assert _bytes(schema, tmp_path / f"j{jobs}.{fmt}", fmt, jobs=jobs) == one, f"--jobs {jobs}"
    stdout = io.BytesIO()
    generate(schema, RECORDS, fmt, "-", seed=5, jobs=2, stdout=stdout)
    assert stdout.getvalue() == one


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_parts_joined_in_order_are_the_whole_file(schema: Path, tmp_path: Path, fmt: str) -> None:
    whole = _bytes(schema, tmp_path / f"whole.{fmt}", fmt, jobs=1)
    for n in (2, 3, 6):  # 6 parts of 4 blocks: 2 hold no records (part 6 still writes the footer)
        parts = [
            _bytes(schema, tmp_path / f"p{k}of{n}.{fmt}", fmt, part=f"{k}/{n}", jobs=2 if k == 1 else 1)
            for k in range(1, n + 1)
        ]
        assert b"".join(parts) == whole, f"{n} parts"
        if n <= 4:  # parts of whole blocks; with more parts than blocks some are empty
            assert all(parts)
    if fmt in ("csv", "ndjson"):  # part 2 of 2 starts with records (the header is part 1's)
        assert whole.endswith(parts_tail := _bytes(schema, tmp_path / "tail", fmt, part="2/2"))
        assert parts_tail.count(b"\n") == RECORDS - 2 * BLOCK_SIZE


def test_an_xsd_dataset_split_in_files_is_the_same_whatever_the_jobs(tmp_path: Path) -> None:
    xsd, root = BENCH / "customer_order.xsd", "customer_orders/customer_order"
    files = {}
    for jobs in (1, 3):
        out = tmp_path / f"j{jobs}" / "orders.xml"
        out.parent.mkdir()
        # files [0, 3000) and [3000, 4101): the second drawn in two pieces, at 4096
        _, paths = generate(
            xsd, BLOCK_SIZE + 5, "xml", str(out), seed=2, root=root, records_per_file=3000, jobs=jobs
        )
        files[jobs] = [p.read_bytes() for p in paths]
    assert len(files[1]) == 2 and files[3] == files[1]
    assert all(f.startswith(b"<?xml") and f.rstrip().endswith(b">") for f in files[1])


def _fail_past_the_first_block(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Plan.write, as the forked processes inherit it: a piece past the first block fails."""
    write = Plan.write

    def failing(
        self: Plan, fmt: str, stream: io.BytesIO, start: int = 0, stop: int | None = None, **kw: object
    ) -> int:
        if start >= BLOCK_SIZE:
            if how == "exit":
                os._exit(9)
            raise Unsatisfiable(f"Generated record {start + 1} is invalid at /age: too old")
        return write(self, fmt, stream, start, stop, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Plan, "write", failing)


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command()
    def noop() -> None:  # a second command keeps `generate` a named sub-command
        pass

    return app


@pytest.mark.parametrize(
    ("how", "status", "said"),
    [
        ("raise", 2, "error: Generated record 4097 is invalid at /age: too old"),
        ("exit", 1, "error: a generation process ended without finishing its records"),
    ],
)
def test_a_failing_process_ends_the_command_without_a_complete_file(
    schema: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, status: int, said: str
) -> None:
    _fail_past_the_first_block(monkeypatch, how)
    out = tmp_path / "out.csv"
    with pytest.raises(Unsatisfiable if how == "raise" else WorkerLost):
        generate(schema, RECORDS, "csv", str(out), seed=5, jobs=2)
    # the file is left as NAME.part (if begun), as a failing run in one process leaves it
    assert not out.exists()
    out = tmp_path / "cli.csv"
    result = CliRunner().invoke(
        _app(), ["generate", str(schema), "-n", str(RECORDS), "-f", "csv", "-o", str(out), "-j", "2"]
    )
    assert result.exit_code == status, result.output
    assert said in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("part", "said"),
    [
        ("0/3", "--part takes K/N with 1 <= K <= N (such as 2/8), not '0/3'."),
        ("4/3", "not '4/3'"),
        ("2", "not '2'"),
        ("a/b", "not 'a/b'"),
    ],
)
def test_a_bad_part_is_refused(schema: Path, tmp_path: Path, part: str, said: str) -> None:
    result = CliRunner().invoke(
        _app(), ["generate", str(schema), "-n", "10", "-o", str(tmp_path / "o.json"), "--part", part]
    )
    assert result.exit_code == 2 and said in result.output, result.output
    assert not list(tmp_path.iterdir())


def test_a_part_of_a_split_output_is_refused(schema: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        _app(),
        [
            "generate",
            str(schema),
            "-n",
            "10",
            "-o",
            str(tmp_path / "o.json"),
            "--seed",
            "1",
            "--part",
            "1/2",
            "--records-per-file",
            "5",
        ],
    )
    assert result.exit_code == 2 and "cannot be combined with --records-per-file" in result.output


def test_a_part_without_a_seed_is_refused(schema: Path, tmp_path: Path) -> None:
    # each part would draw a seed of its own, and the parts would not join
    result = CliRunner().invoke(
        _app(), ["generate", str(schema), "-n", "9", "-o", str(tmp_path / "o"), "--part", "1/2"]
    )
    assert result.exit_code == 2 and "error: --part needs --seed" in result.output


def test_the_command_reports_the_part_it_wrote(schema: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.ndjson"
    result = CliRunner().invoke(
        _app(),
        [
            "generate",
            str(schema),
            "-n",
            str(RECORDS),
            "-f",
            "ndjson",
            "-o",
            str(out),
            "--seed",
            "4",
            "--part",
            "2/2",
            "--jobs",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    tail = RECORDS - 2 * BLOCK_SIZE
    assert f"seed 4: {tail} records (part 2/2 of {RECORDS})" in result.output
    assert out.read_bytes().count(b"\n") == tail
