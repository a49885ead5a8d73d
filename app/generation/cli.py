"""`tdg generate`: offline generation from a schema file, no server or database involved.
Design notes: docs/generation.md.

This module is imported by every `tdg` command line (`tdg serve` and `tdg --help` included) to
define the command, so it imports only typer at the top: the engine, its schema dialects and
their libraries are imported when a run needs them (tests/generation/test_generate_imports.py)."""

from __future__ import annotations

import contextlib
import gc
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from app.generation.output_formats import spoken

if TYPE_CHECKING:
    from app.generation.model import FieldTree
    from app.generation.plan import Plan


def load_rules(tree: FieldTree, raw: Any) -> list[Any]:
    """Constraint rules from a constraints file (a list of rules, or an object with `rules`)."""
    from app.generation.errors import RuleError
    from app.generation.rules import parse_rules

    if isinstance(raw, dict) and "rules" in raw:
        raw = raw["rules"]
    if not isinstance(raw, list) or not all(
        isinstance(r, dict) and isinstance(r.get("path"), str) for r in raw
    ):
        raise RuleError("The constraints file must hold a list of rules, each an object with a `path`.")
    return list(parse_rules(tree, raw))


def build_plan(
    schema_file: Path,
    count: int,
    *,
    constraints: Path | None = None,
    seed: int | None = None,
    root: str | None = None,
    locale: str | None = None,
    records_per_file: int | None = None,
    sql_dialect: str | None = None,
    table_name: str | None = None,
    coverage: str | None = None,
    invalid_rate: float | None = None,
    invalid_keywords: str | None = None,
    fmt: str = "json",
    xml_layout: str | None = None,
) -> Plan:
    """The run's Plan; with `coverage` its first records are the coverage set (`plan.coverage`)."""
    import json

    from app.generation.errors import RuleError
    from app.generation.plan import compile_plan
    from app.generation.schema import xsd_cache
    from app.generation.schema.files import load_schema_path

    with xsd_cache.enabled():  # a one-record run would spend a fifth of its time building the XSD
        loaded = load_schema_path(schema_file)
    params: dict[str, Any] = {
        k: v
        for k, v in {
            "seed": seed,
            "root": root,
            # `--locale en_US,de_DE`: each record's locale drawn from the list (params.locales)
            "locale": locale if locale is None or "," not in locale else None,
            "locales": [x.strip() for x in locale.split(",")] if locale and "," in locale else None,
            "records_per_file": records_per_file,
            "sql_dialect": sql_dialect,
            "table_name": table_name,
            "xml_layout": xml_layout,
        }.items()
        if v is not None
    }
    rules: list[Any] = []
    if constraints is not None:
        try:
            raw = json.loads(constraints.read_bytes())
        except (OSError, ValueError) as exc:
            raise RuleError(f"The constraints file cannot be read as JSON: {exc}") from None
        rules = load_rules(loaded.field_tree(root), raw)
    keywords = [k.strip() for k in invalid_keywords.split(",") if k.strip()] if invalid_keywords else None
    if coverage == "each" and invalid_rate == 1:
        from app.generation.coverage.suite import compile_negative_suite
        from app.generation.params import parse_params

        return compile_negative_suite(
            loaded, rules, parse_params(params), record_count=count, keywords=keywords, formats=(fmt,)
        )
    if coverage is not None:
        from app.generation.coverage import compile_coverage

        plan = compile_coverage(loaded, rules, params, mode=coverage, record_count=count)[0]
    else:
        plan = compile_plan(loaded, rules, params, record_count=count)
    if invalid_rate:
        from app.generation.negative.engine import attach_negative

        attach_negative(plan, loaded, rate=invalid_rate, keywords=keywords, formats=(fmt,), rules=rules)
    return plan


def generate(
    schema_file: Path,
    count: int | None,
    fmt: str,
    out: str,
    *,
    constraints: Path | None = None,
    seed: int | None = None,
    root: str | None = None,
    locale: str | None = None,
    records_per_file: int | None = None,
    sql_dialect: str | None = None,
    table_name: str | None = None,
    jobs: int = 1,
    part: str | None = None,
    coverage: str | None = None,
    report: str | None = None,
    invalid_rate: float | None = None,
    invalid_keywords: str | None = None,
    labels: str | None = None,
    xml_layout: str | None = None,
    progress: Callable[[int], None] | None = None,
    stdout: IO[bytes] | None = None,
    process_exits: bool = False,
) -> tuple[Plan, list[Path]]:
    """Generate `count` records of `fmt` into `out` (a path, or "-" for stdout), drawn by `jobs`
    processes; `part` "K/N": only the records of part K of N (see `part_bounds`). `process_exits`:
    the process ends with this run (the console command), see `_collector_deferred`.

    `coverage` (each | pairwise): the coverage set first, then random records up to `count`
    (the set alone when `count` is None or smaller); its report is written to `report`, by
    default the output path with `.coverage.json` appended (every part writes the same one).

    `invalid_rate`: that share of the records (exactly round(count x rate)) break one constraint
    each; their labels (NDJSON) go to `labels`, by default the output path + `.labels.ndjson`."""
    from app.generation.cli_checks import check_options, check_part_options
    from app.generation.cli_output import write_documents, write_report

    count = check_options(
        fmt, count, out, records_per_file=records_per_file, jobs=jobs, coverage=coverage, report=report,
        invalid_rate=invalid_rate, invalid_keywords=invalid_keywords, labels=labels,
    )
    start, stop, head, foot = part_bounds(count, part)
    check_part_options(
        fmt, out, part=part, seed=seed, records_per_file=records_per_file, invalid_rate=invalid_rate,
        xml_layout=xml_layout,
    )
    with _collector_deferred() if process_exits else contextlib.nullcontext():
        plan = build_plan(
            schema_file, count, constraints=constraints, seed=seed, root=root, locale=locale,
            records_per_file=records_per_file, sql_dialect=sql_dialect, table_name=table_name,
            coverage=coverage, invalid_rate=invalid_rate, invalid_keywords=invalid_keywords, fmt=fmt,
            xml_layout=xml_layout,
        )
    if coverage is not None:
        where = report if report is not None else None if out == "-" else out + ".coverage.json"
        if where is not None and plan.coverage is not None:  # the negative suite has its labels
            assert plan.coverage is not None
            write_report(Path(where), plan.coverage.report())
        # the set may be larger than `count`: the run holds max(count, set size) records
        start, stop, head, foot = part_bounds(plan.record_count, part)
    if xml_layout == "documents":
        return plan, write_documents(plan, Path(out), start, stop, progress)
    paths = _write_records(
        plan, fmt, out, (start, stop, head, foot), jobs=jobs, split=bool(records_per_file),
        labels=labels, progress=progress, stdout=stdout,
    )
    return plan, paths


def _write_records(
    plan: Plan,
    fmt: str,
    out: str,
    bounds: tuple[int, int, bool, bool],
    *,
    jobs: int,
    split: bool,
    labels: str | None,
    progress: Callable[[int], None] | None,
    stdout: IO[bytes] | None,
) -> list[Path]:
    """Records [start, stop) of `bounds` (with the header and footer it says) into `out`, or
    stdout for "-": the files written (none for stdout). `split`: --records-per-file was given."""
    from app.generation.cli_output import Files, Stdout, labels_file
    from app.generation.fanout import pieces, write_pieces

    start, stop, head, foot = bounds
    # one piece per file in one process; pieces of the plan's blocks to share among processes
    unit = plan.block_size if jobs > 1 else max(1, plan.record_count)
    work = pieces(plan, start, stop, unit, header=head, footer=foot)
    with labels_file(plan, out, labels) as label_stream:
        if out == "-":
            stream = stdout if stdout is not None else sys.stdout.buffer
            write_pieces(plan, fmt, work, Stdout(stream), jobs=jobs, progress=progress, labels=label_stream)
            return []
        files = Files(Path(out), len(plan.file_ranges()) > 1 or split)
        try:
            write_pieces(plan, fmt, work, files, jobs=jobs, progress=progress, labels=label_stream)
            if not work:  # a part past the blocks: an empty file, so every part has its file
                files.open(0)
                files.close(0)
        finally:
            files.abandon()
        return files.paths


def part_bounds(count: int, part: str | None) -> tuple[int, int, bool, bool]:
    """(start, stop, header, footer) of `--part K/N` (all records, header and footer without it):
    part K holds whole blocks of BLOCK_SIZE records (plan.part_range); part 1 writes the header and
    part N the footer, so parts 1..N joined in order are the whole file, byte for byte."""
    if part is None:
        return 0, count, True, True
    from app.generation.fanout import parse_part
    from app.generation.plan import part_range

    k, n = parse_part(part)
    start, stop = part_range(count, k, n)
    return start, stop, k == 1, k == n


@contextlib.contextmanager
def _collector_deferred() -> Iterator[None]:
    """No cyclic garbage collection while the run imports the engine, loads the schema and
    compiles: the collections that set off traversed every object so far, 60-100 ms of a
    one-record XSD run. What was built is then frozen (`gc.freeze`, as `tdg serve` does after
    start-up), so the collections of the writing phase do not traverse it either. Frozen objects
    are never collected, which only a process that ends with the run can afford."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


# `tdg generate`'s argument and options, declared once here so the command reads as its list
SchemaFileArg = Annotated[
    Path,
    typer.Argument(
        exists=True,
        dir_okay=True,
        readable=True,
        help="JSON Schema or XSD; a multi-file XSD is read from the main schema's folder "
        "(or give the folder, or a .zip)",
    ),
]
CountOpt = Annotated[
    int | None, typer.Option("-n", "--count", min=1, help="Number of records (with --coverage: at least the set)")
]
FormatOpt = Annotated[str, typer.Option("-f", "--format", help=spoken())]
OutOpt = Annotated[str, typer.Option("-o", "--out", help="Output file, or - for stdout")]
ConstraintsOpt = Annotated[
    Path | None,
    typer.Option("--constraints", exists=True, dir_okay=False, help="JSON file with constraint rules"),
]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Seed (drawn and reported when absent)")]
RootOpt = Annotated[str | None, typer.Option("--root", help="Record root element / definition")]
LocaleOpt = Annotated[
    str | None,
    typer.Option(
        "--locale",
        help="e.g. en_US, de_DE, fr_FR, ja_JP; a comma-separated list draws each record's from it",
    ),
]
RecordsPerFileOpt = Annotated[
    int | None, typer.Option("--records-per-file", min=1, help="Split the output into files of K records")
]
SqlDialectOpt = Annotated[str | None, typer.Option("--sql-dialect", help="postgresql, mysql or sqlite")]
TableNameOpt = Annotated[str | None, typer.Option("--table-name", help="SQL table name")]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "-j",
        "--jobs",
        min=1,
        help="Processes drawing blocks of records at once (default: this machine's cores); "
        "the output is the same bytes whatever the number",
    ),
]
PartOpt = Annotated[
    str | None,
    typer.Option(
        "--part",
        help="K/N: write only part K of N (whole blocks of 4,096 records; part 1 holds the "
        "header, part N the footer), so parts 1..N joined in order are the whole output",
    ),
]
CoverageOpt = Annotated[
    str | None,
    typer.Option(
        "--coverage",
        help="each or pairwise: first the fewest valid records covering every enum value, "
        "branch, optional part, null and bound (pairwise: every pair of finite-domain values)",
    ),
]
ReportOpt = Annotated[
    str | None, typer.Option("--report", help="Coverage report file (default: the output path + .coverage.json)")
]
InvalidRateOpt = Annotated[
    float | None,
    typer.Option(
        "--invalid-rate",
        min=0,
        max=1,
        help="Share of records (0-1) that break exactly one constraint each, labelled",
    ),
]
InvalidKeywordsOpt = Annotated[
    str | None, typer.Option("--invalid-keywords", help="Comma-separated keywords the invalid records may break")
]
LabelsOpt = Annotated[
    str | None, typer.Option("--labels", help="Labels file (NDJSON); default: the output path + .labels.ndjson")
]
XmlLayoutOpt = Annotated[
    str | None,
    typer.Option(
        "--xml-layout",
        help="XML only: container (default: every record in one <records> element) or documents "
        "(one document per record, each valid against the XSD as a file; --out names a folder)",
    ),
]


def register(app: typer.Typer) -> None:
    """Add the `generate` command to the `tdg` CLI."""

    @app.command("generate")
    def generate_command(
        schema_file: SchemaFileArg,
        *,
        count: CountOpt = None,
        fmt: FormatOpt = "json",
        out: OutOpt,
        constraints: ConstraintsOpt = None,
        seed: SeedOpt = None,
        root: RootOpt = None,
        locale: LocaleOpt = None,
        records_per_file: RecordsPerFileOpt = None,
        sql_dialect: SqlDialectOpt = None,
        table_name: TableNameOpt = None,
        jobs: JobsOpt = None,
        part: PartOpt = None,
        coverage: CoverageOpt = None,
        report: ReportOpt = None,
        invalid_rate: InvalidRateOpt = None,
        invalid_keywords: InvalidKeywordsOpt = None,
        labels: LabelsOpt = None,
        xml_layout: XmlLayoutOpt = None,
    ) -> None:
        """Generate test data from a schema file, offline."""
        run_command(
            schema_file,
            count,
            fmt,
            out,
            constraints=constraints,
            seed=seed,
            root=root,
            locale=locale,
            records_per_file=records_per_file,
            sql_dialect=sql_dialect,
            table_name=table_name,
            jobs=jobs,
            part=part,
            coverage=coverage,
            report=report,
            invalid_rate=invalid_rate,
            invalid_keywords=invalid_keywords,
            labels=labels,
            xml_layout=xml_layout,
        )


def run_command(schema_file: Path, count: int | None, fmt: str, out: str, **options: Any) -> None:
    """The `generate` command's work once its command line is read (by typer or by `fast_path`):
    a progress bar on a terminal, the seed on stderr; a GenerationError exits with status 2, a
    generation process that died with status 1 (its file left as NAME.part, as any failed run's)."""
    from app.generation.errors import GenerationError
    from app.generation.fanout import WorkerLost, default_jobs

    if options.get("jobs") is None:
        options["jobs"] = default_jobs()
    try:
        start, stop, _, _ = part_bounds(count or 0, options.get("part"))
        if sys.stderr.isatty():
            with _Bar(stop - start) as bar:
                plan, paths = generate(schema_file, count, fmt, out, progress=bar.advance, **options)
        else:
            plan, paths = generate(schema_file, count, fmt, out, **options)
    except GenerationError as exc:
        typer.echo(f"error: {exc.detail}", err=True)
        raise typer.Exit(2) from None
    except WorkerLost as exc:
        typer.echo(f"error: {exc}; no output was completed.", err=True)
        raise typer.Exit(1) from None
    cover = plan.coverage
    if cover is not None or (plan.negative is not None and plan.negative.suite):
        # the set (or the negative suite) may be larger than the count asked for
        start, stop, _, _ = part_bounds(plan.record_count, options.get("part"))
    written = f"{stop - start} records" + (
        f" (part {options['part']} of {plan.record_count})" if options.get("part") else ""
    )
    if plan.negative is not None:
        written += f", {len(plan.negative.rows(start, stop))} invalid"
    listed = (
        ", ".join(map(str, paths)) if len(paths) <= 10 else f"{paths[0].parent}{os.sep} ({paths[0].name} ...)"
    )
    typer.echo(
        f"seed {plan.params.seed}: {written}" + (f" in {len(paths)} file(s): {listed}" if paths else ""),
        err=True,
    )
    if cover is not None:
        rep = cover.report()
        typer.echo(
            f"coverage {rep['mode']}: the first {rep['records']} records cover {rep['covered']} "
            f"of {rep['total']} targets",
            err=True,
        )


class _Bar:
    """rich's progress bar, started at the first records written, not before: its refresh thread
    must not exist yet when `--jobs` forks the generation processes (a forked child would inherit
    the locks that thread holds)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> _Bar:
        return self

    def advance(self, k: int) -> None:
        if self.progress is None:
            from rich.progress import Progress

            self.progress = Progress(transient=True)
            self.progress.start()
            self.task = self.progress.add_task("generating", total=self.total)
        self.progress.advance(self.task, k)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


# -- the fast path ---------------------------------------------------------------------------
#
# typer reads every option through a pydantic TypeAdapter it builds on first use: pydantic's import
# and eleven adapters cost 0.1-0.3 s, more than a one-record run takes otherwise. A command line
# that is plainly valid is read here instead, with click's rules (an option's value is the next
# word whatever it looks like, `--opt=value` and `-nVALUE` forms, the last of a repeated option
# wins), into the same values typer would give; any other (help, a bad value, an unknown option,
# a missing file) goes to typer, which words the error as before.
# tests/generation/test_generate_imports.py holds this table to the typer command's options.

FAST_OPTIONS: dict[str, str] = {
    "-n": "count",
    "--count": "count",
    "-f": "fmt",
    "--format": "fmt",
    "-o": "out",
    "--out": "out",
    "--constraints": "constraints",
    "--seed": "seed",
    "--root": "root",
    "--locale": "locale",
    "--records-per-file": "records_per_file",
    "--sql-dialect": "sql_dialect",
    "--table-name": "table_name",
    "-j": "jobs",
    "--jobs": "jobs",
    "--part": "part",
    "--coverage": "coverage",
    "--report": "report",
    "--invalid-rate": "invalid_rate",
    "--invalid-keywords": "invalid_keywords",
    "--labels": "labels",
    "--xml-layout": "xml_layout",
}
_INTS = {"count": 1, "seed": None, "records_per_file": 1, "jobs": 1}  # dest -> its minimum


def _words(argv: list[str]) -> dict[str, str] | None:
    """The command line's option values and argument by destination, or None to leave it to typer."""
    words: dict[str, str] = {}
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word.startswith("--") and word != "--":
            name, eq, value = word.partition("=")
            if name not in FAST_OPTIONS:
                return None
            if not eq:
                if not rest:
                    return None
                value = rest.pop(0)
            words[FAST_OPTIONS[name]] = value
        elif word.startswith("-") and word not in ("-", "--"):
            if word[:2] not in FAST_OPTIONS:
                return None
            if len(word) > 2:
                value = word[2:]
            elif rest:
                value = rest.pop(0)
            else:
                return None
            words[FAST_OPTIONS[word[:2]]] = value
        elif word == "--" or "schema_file" in words:
            return None
        else:
            words["schema_file"] = word
    return words


def _readable(text: str, dir_ok: bool) -> Path | None:
    if not text:
        return None
    path = Path(text)
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if (stat.S_ISDIR(mode) and not dir_ok) or not os.access(path, os.R_OK):
        return None
    return path


def fast_arguments(argv: list[str]) -> dict[str, Any] | None:
    """`tdg generate`'s arguments from `argv` (after `generate`) as typer would pass them to the
    command, or None when typer should read the command line (and report its error, if any)."""
    words = _words(argv)
    if words is None or not {"schema_file", "out"} <= words.keys():
        return None
    if "count" not in words and "coverage" not in words:
        return None
    args: dict[str, Any] = dict(words)
    args.setdefault("fmt", "json")
    args.setdefault("count", None)
    for dest, least in _INTS.items():
        if dest in words:
            text = words[dest]
            if not re.fullmatch(r"-?(?:0|[1-9][0-9]{0,30})", text):
                return None
            args[dest] = int(text)
            if least is not None and args[dest] < least:
                return None
    if "invalid_rate" in words:
        try:
            args["invalid_rate"] = float(words["invalid_rate"])
        except ValueError:
            return None
        if not 0 <= args["invalid_rate"] <= 1:
            return None
    args["schema_file"] = _readable(words["schema_file"], dir_ok=True)
    if "constraints" in words:
        args["constraints"] = _readable(words["constraints"], dir_ok=False)
        if args["constraints"] is None:
            return None
    return args if args["schema_file"] is not None else None


def fast_path(argv: list[str]) -> int | None:
    """Run `tdg generate` for `argv` (the words after the program name) without typer when they
    are plainly valid: the exit status; None when typer should take the command line."""
    if not argv or argv[0] != "generate":
        return None
    args = fast_arguments(argv[1:])
    if args is None:
        return None
    try:
        run_command(**args, process_exits=True)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("\nAborted!", err=True)
        return 1
    except BrokenPipeError:  # `tdg generate -o - | head`: the reader left (click exits 1 too)
        # Python's advice: point stdout at devnull, so the flush at exit does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0
