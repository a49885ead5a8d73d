"""A run's params (DESIGN §5): the keys a dataset or `tdg generate` may set, read and checked
into GenerationParams before anything is compiled."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.generation.errors import ParamsError
from app.generation.values.locales import normalise_locale, normalise_locales
from app.generation.writers.sql import DIALECTS

PARAM_KEYS = frozenset(
    {
        "seed",
        "locale",
        "locales",
        "root",
        "records_per_file",
        "null_rate",
        "sql_dialect",
        "table_name",
        "csv_delimiter",
        "csv_formula_guard",
        "deferred",
        "coverage",
        "xml_layout",
        "invalid_rate",
        "invalid_keywords",
    }
)
XML_LAYOUTS = ("container", "documents")


@dataclass(frozen=True)
class GenerationParams:
    seed: int
    locale: str = "en_US"
    locales: tuple[str, ...] = ()  # params.locales: each record's locale drawn from these
    root: str | None = None
    records_per_file: int | None = None
    null_rate: float | None = None
    sql_dialect: str = "postgresql"
    table_name: str | None = None
    csv_delimiter: str = ","
    csv_formula_guard: bool = False
    coverage: str | None = None  # each | pairwise: the first records are the coverage set
    # XML: every record inside one <records> container (one file), or one document per record
    xml_layout: str = "container"
    # the share of records that break one constraint each (negative/engine.py attaches them)
    invalid_rate: float = 0.0
    invalid_keywords: tuple[str, ...] | None = None  # the keywords they may break (None: any)


def parse_params(raw: Mapping[str, Any] | None) -> GenerationParams:
    """Validate DESIGN §5 params; a missing seed is drawn (store `plan.params.seed` to reproduce)."""
    raw = dict(raw or {})
    unknown = sorted(set(raw) - PARAM_KEYS)
    if unknown:
        raise ParamsError(f"Unknown params: {', '.join(unknown)}.", field=f"params.{unknown[0]}")
    seed = raw.get("seed")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ParamsError("params.seed must be an integer between 0 and 2^64-1.", field="params.seed")
    rpf = raw.get("records_per_file")
    if rpf is not None and (isinstance(rpf, bool) or not isinstance(rpf, int) or rpf < 1):
        raise ParamsError(
            "params.records_per_file must be a positive integer.", field="params.records_per_file"
        )
    rate = raw.get("null_rate")
    if rate is not None and (
        isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1
    ):
        raise ParamsError("params.null_rate must be a number between 0 and 1.", field="params.null_rate")
    dialect = raw.get("sql_dialect") or "postgresql"
    if dialect not in DIALECTS:
        raise ParamsError(
            f"params.sql_dialect must be one of {', '.join(DIALECTS)}.", field="params.sql_dialect"
        )
    delim = raw.get("csv_delimiter") or ","
    if not isinstance(delim, str) or len(delim) != 1 or delim in '"\r\n':
        raise ParamsError(
            "params.csv_delimiter must be a single character other than a quote or line break.",
            field="params.csv_delimiter",
        )
    table = raw.get("table_name")
    if table is not None and (not isinstance(table, str) or not table.strip() or len(table) > 63):
        raise ParamsError(
            "params.table_name must be a non-empty name of at most 63 characters.", field="params.table_name"
        )
    root = raw.get("root")
    if root is not None and not isinstance(root, str):
        raise ParamsError("params.root must be a string.", field="params.root")
    coverage = raw.get("coverage")
    if coverage is not None and coverage not in ("each", "pairwise"):
        raise ParamsError("params.coverage must be each or pairwise.", field="params.coverage")
    invalid_rate, keywords = _invalid_records(raw, coverage)
    locales = normalise_locales(raw["locales"]) if raw.get("locales") is not None else ()
    layout = raw.get("xml_layout") or "container"
    if layout not in XML_LAYOUTS:
        raise ParamsError(
            "params.xml_layout must be 'container' (every record in one <records> element of one "
            "file) or 'documents' (one XML document per record).",
            field="params.xml_layout",
        )
    return GenerationParams(
        seed=seed,
        locale=locales[0] if locales else normalise_locale(raw.get("locale")),
        locales=locales if len(set(locales)) > 1 else (),
        root=root,
        records_per_file=rpf,
        null_rate=None if rate is None else float(rate),
        sql_dialect=dialect,
        table_name=table,
        csv_delimiter=delim,
        csv_formula_guard=bool(raw.get("csv_formula_guard", False)),
        coverage=coverage,
        xml_layout=layout,
        invalid_rate=invalid_rate,
        invalid_keywords=keywords,
    )


def _invalid_records(raw: Mapping[str, Any], coverage: str | None) -> tuple[float, tuple[str, ...] | None]:
    """params.invalid_rate and params.invalid_keywords, checked (keywords None: any keyword)."""
    invalid_rate = raw.get("invalid_rate", 0)
    if isinstance(invalid_rate, bool) or not isinstance(invalid_rate, int | float) or not 0 <= invalid_rate <= 1:
        raise ParamsError("params.invalid_rate must be a number between 0 and 1.", field="params.invalid_rate")
    if coverage is not None and invalid_rate and not (coverage == "each" and invalid_rate == 1):
        # breaking some records of the coverage set would leave its report claiming targets that
        # the broken records no longer meet; rate 1 with each is the negative suite (coverage/suite.py)
        raise ParamsError(
            "params.coverage and params.invalid_rate combine only as coverage each with invalid_rate 1 "
            "(the negative suite: one invalid record per breakable constraint); a coverage set is made "
            "of valid records.",
            field="params.invalid_rate",
        )
    keywords = raw.get("invalid_keywords")
    if keywords is not None and (
        not isinstance(keywords, list) or not all(isinstance(k, str) and k for k in keywords)
    ):
        raise ParamsError(
            "params.invalid_keywords must be a list of JSON Schema keywords.", field="params.invalid_keywords"
        )
    return float(invalid_rate), tuple(keywords) if keywords else None
