"""`tdg generate`: offline generation from a schema file, no server or database involved.
Design notes: docs/generation.md."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import typer

from app.generation.errors import GenerationError, ParamsError, RuleError
from app.generation.model import FieldTree
from app.generation.plan import FORMATS, Plan, compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.files import load_schema_path


def load_rules(tree: FieldTree, raw: Any) -> list[Any]:
    """Constraint rules from a constraints file (a list of rules, or an object with `rules`)."""
    if isinstance(raw, dict) and "rules" in raw:
        raw = raw["rules"]
    if not isinstance(raw, list) or not all(
        isinstance(r, dict) and isinstance(r.get("path"), str) for r in raw
    ):
        raise RuleError("The constraints file must hold a list of rules, each an object with a `path`.")
    return list(parse_rules(tree, raw))


def file_path(out: Path, index: int, split: bool) -> Path:
    return out.with_name(f"{out.stem}-{index}{out.suffix}") if split else out


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
) -> Plan:
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
    return compile_plan(loaded, rules, params, record_count=count)


def generate(
    schema_file: Path,
    count: int,
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
    progress: Callable[[int], None] | None = None,
    stdout: IO[bytes] | None = None,
) -> tuple[Plan, list[Path]]:
    """Generate `count` records of `fmt` into `out` (a path, or "-" for stdout)."""
    if fmt not in FORMATS:
        raise ParamsError(f"Unknown format {fmt!r}; use one of {', '.join(FORMATS)}.")
    if count < 1:
        raise ParamsError("The record count must be at least 1.")
    if out == "-" and records_per_file:
        raise ParamsError("--records-per-file needs an output path, not stdout.")
    plan = build_plan(
        schema_file,
        count,
        constraints=constraints,
        seed=seed,
        root=root,
        locale=locale,
        records_per_file=records_per_file,
        sql_dialect=sql_dialect,
        table_name=table_name,
    )
    if out == "-":
        stream = stdout if stdout is not None else sys.stdout.buffer
        plan.write(fmt, stream, progress=progress)
        stream.flush()
        return plan, []
    paths: list[Path] = []
    ranges = plan.file_ranges()
    for i, _ in enumerate(ranges):
        path = file_path(Path(out), i, len(ranges) > 1 or bool(records_per_file))
        tmp = path.with_name(path.name + ".part")
        with tmp.open("wb") as fh:
            plan.write_file(fmt, fh, i, progress=progress)
        tmp.replace(path)
        paths.append(path)
    return plan, paths


def register(app: typer.Typer) -> None:
    """Add the `generate` command to the `tdg` CLI."""

    @app.command("generate")
    def generate_command(
        schema_file: Path = typer.Argument(
            ...,
            exists=True,
            dir_okay=True,
            readable=True,
            help="JSON Schema or XSD; a multi-file XSD is read from the main schema's folder "
            "(or give the folder, or a .zip)",
        ),
        count: int = typer.Option(..., "-n", "--count", min=1, help="Number of records"),
        fmt: str = typer.Option("json", "-f", "--format", help="csv, json, ndjson, xml or sql"),
        out: str = typer.Option(..., "-o", "--out", help="Output file, or - for stdout"),
        constraints: Path | None = typer.Option(
            None, "--constraints", exists=True, dir_okay=False, help="JSON file with constraint rules"
        ),
        seed: int | None = typer.Option(None, "--seed", help="Seed (drawn and reported when absent)"),
        root: str | None = typer.Option(None, "--root", help="Record root element / definition"),
        locale: str | None = typer.Option(
            None,
            "--locale",
            help="e.g. en_US, de_DE, fr_FR, ja_JP; a comma-separated list draws each record's from it",
        ),
        records_per_file: int | None = typer.Option(
            None, "--records-per-file", min=1, help="Split the output into files of K records"
        ),
        sql_dialect: str | None = typer.Option(None, "--sql-dialect", help="postgresql, mysql or sqlite"),
        table_name: str | None = typer.Option(None, "--table-name", help="SQL table name"),
    ) -> None:
        """Generate test data from a schema file, offline."""
        show_bar = sys.stderr.isatty()
        try:
            if show_bar:
                from rich.progress import Progress

                with Progress(transient=True) as bar:
                    task = bar.add_task("generating", total=count)
                    plan, paths = generate(
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
                        progress=lambda k: bar.advance(task, k),
                    )
            else:
                plan, paths = generate(
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
                )
        except GenerationError as exc:
            typer.echo(f"error: {exc.detail}", err=True)
            raise typer.Exit(2) from None
        typer.echo(
            f"seed {plan.params.seed}: {count} records"
            + (f" in {len(paths)} file(s): {', '.join(map(str, paths))}" if paths else ""),
            err=True,
        )
