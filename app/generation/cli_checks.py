"""`tdg generate`'s options checked against each other before anything is loaded: a combination
that cannot run is a ParamsError (exit status 2) naming the options."""

from __future__ import annotations

from app.generation.errors import ParamsError
from app.generation.output_formats import FORMAT_NAMES


def check_options(
    fmt: str,
    count: int | None,
    out: str,
    *,
    records_per_file: int | None,
    jobs: int,
    coverage: str | None,
    report: str | None,
    invalid_rate: float | None,
    invalid_keywords: str | None,
    labels: str | None,
) -> int:
    """The record count to run (0 when only the coverage set is asked for)."""
    if fmt not in FORMAT_NAMES:
        raise ParamsError(f"Unknown format {fmt!r}; use one of {', '.join(FORMAT_NAMES)}.")
    if coverage is not None and coverage not in ("each", "pairwise"):
        raise ParamsError("--coverage must be each or pairwise.")
    if count is None and coverage is None:
        raise ParamsError("The record count (-n) is needed unless --coverage is given.")
    if report is not None and coverage is None:
        raise ParamsError("--report needs --coverage.")
    if coverage is not None and invalid_rate and not (coverage == "each" and invalid_rate == 1):
        raise ParamsError(
            "--coverage and --invalid-rate combine only as --coverage each --invalid-rate 1 (the negative "
            "suite: one invalid record per breakable constraint); a coverage set is made of valid records."
        )
    if coverage is not None and invalid_rate and report is not None:
        raise ParamsError("--report has nothing to report for the negative suite: its labels say what each record breaks.")
    count = 0 if count is None else count
    if count < 1 and coverage is None:
        raise ParamsError("The record count must be at least 1.")
    if out == "-" and records_per_file:
        raise ParamsError("--records-per-file needs an output path, not stdout.")
    if jobs < 1:
        raise ParamsError("--jobs must be at least 1.")
    if invalid_rate is not None and not 0 <= invalid_rate <= 1:
        raise ParamsError("--invalid-rate must be a number between 0 and 1.")
    if (invalid_keywords or labels is not None) and not invalid_rate:
        raise ParamsError("--invalid-keywords and --labels need an --invalid-rate above 0.")
    if invalid_rate and out == "-" and labels is None:
        raise ParamsError("--invalid-rate with output to stdout needs --labels FILE.")
    return count


def check_part_options(
    fmt: str,
    out: str,
    *,
    part: str | None,
    seed: int | None,
    records_per_file: int | None,
    invalid_rate: float | None,
    xml_layout: str | None,
) -> None:
    """`--part` and `--xml-layout` against the rest (checked once `--part` itself was read)."""
    if part is not None and seed is None:
        raise ParamsError("--part needs --seed: every part of one output must draw from the same seed.")
    if part is not None and records_per_file:
        raise ParamsError("--part writes a piece of one file: it cannot be combined with --records-per-file.")
    documents = xml_layout == "documents"
    if xml_layout is not None and fmt != "xml":
        raise ParamsError("--xml-layout applies to XML output only (-f xml).")
    if documents and out == "-":
        raise ParamsError(
            "--xml-layout documents writes one file per record: give --out a folder, not stdout."
        )
    if documents and records_per_file:
        raise ParamsError("--xml-layout documents writes one file per record: leave out --records-per-file.")
    if documents and invalid_rate:
        raise ParamsError("--xml-layout documents writes valid documents only: leave out --invalid-rate.")
