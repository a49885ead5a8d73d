"""The generation API the dataset job runner calls: compile once, then write any record range.

    plan = compile_plan(loaded_schema_or_field_tree, rules, params, record_count=N,
                        validator=loaded.record_validator(root))        # Invalid when unsatisfiable
    plan.write("csv", stream, start, stop, header=True, footer=True, progress=callback)
    plan.file_ranges()            # [(start, stop)] per output file (params.records_per_file)
    plan.write_file("json", stream, file_index, progress=callback)
    plan.shard_ranges(k)          # [(start, stop)] of whole blocks, for k workers
    plan.records(start, stop)     # the records as Python objects (JSON form)

Determinism: records are grouped in blocks of `BLOCK_SIZE`; block b is generated from
`SeedSequence([seed, b, node key])` per node, in full, whatever range is asked, so any split into
chunks, shards or files produces the same bytes. A writer's separators and keys depend only on
record positions; a shard writes its range with `header=False, footer=False` except the first
(header) and last (footer) of a file, and the concatenation equals a single run's file.

Formats: "csv", "json", "ndjson", "xml", "sql". `params` keys (DESIGN §5): seed, locale, root,
records_per_file, null_rate, sql_dialect, table_name, csv_delimiter (+ csv_formula_guard, off by
default, and deferred, which the job layer reads); unknown keys are refused.

Validity guard: every record of a run of at most `GUARD_ALL` records, else `GUARD_SAMPLE`
evenly spaced records of each `write` call, are checked with the schema's RecordValidator (JSON
form with jsonschema for JSON Schema, the XML element with xmlschema for XSD); an invalid record
fails the call with Invalid naming the field. `compile_plan` also checks the first record of its
probe block, so a schema whose records the guard rejects fails before any bytes are written.
Schema patterns are matched with a time budget (see record_validation.py).
"""

from __future__ import annotations

import gc
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import orjson

from app.core.errors import Invalid
from app.generation.columns import Column, take
from app.generation.compiler import Compiler
from app.generation.fieldmodel import FieldTree
from app.generation.generators import BlockContext, Gen, Rows
from app.generation.vocab import normalise_locale
from app.generation.writers.csv import CsvWriter
from app.generation.writers.json import JsonArrayWriter, NdjsonWriter
from app.generation.writers.sql import BATCH as SQL_BATCH
from app.generation.writers.sql import DIALECTS, SqlWriter
from app.generation.writers.xml import XmlWriter, xml_name

BLOCK_SIZE = 4096
FORMATS = ("csv", "json", "ndjson", "xml", "sql")
GUARD_ALL = 2000
GUARD_SAMPLE = 200
PARAM_KEYS = frozenset({"seed", "locale", "root", "records_per_file", "null_rate", "sql_dialect", "table_name",
                        "csv_delimiter", "csv_formula_guard", "deferred"})
Progress = Callable[[int], None]


@dataclass(frozen=True)
class GenerationParams:
    seed: int
    locale: str = "en_US"
    root: str | None = None
    records_per_file: int | None = None
    null_rate: float | None = None
    sql_dialect: str = "postgresql"
    table_name: str | None = None
    csv_delimiter: str = ","
    csv_formula_guard: bool = False


def parse_params(raw: Mapping[str, Any] | None) -> GenerationParams:
    """Validate DESIGN §5 params; a missing seed is drawn (store `plan.params.seed` to reproduce)."""
    raw = dict(raw or {})
    unknown = sorted(set(raw) - PARAM_KEYS)
    if unknown:
        raise Invalid(f"Unknown params: {', '.join(unknown)}.")
    seed = raw.get("seed")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise Invalid("params.seed must be an integer between 0 and 2^64-1.")
    rpf = raw.get("records_per_file")
    if rpf is not None and (isinstance(rpf, bool) or not isinstance(rpf, int) or rpf < 1):
        raise Invalid("params.records_per_file must be a positive integer.")
    rate = raw.get("null_rate")
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1):
        raise Invalid("params.null_rate must be a number between 0 and 1.")
    dialect = raw.get("sql_dialect") or "postgresql"
    if dialect not in DIALECTS:
        raise Invalid(f"params.sql_dialect must be one of {', '.join(DIALECTS)}.")
    delim = raw.get("csv_delimiter") or ","
    if not isinstance(delim, str) or len(delim) != 1 or delim in '"\r\n':
        raise Invalid("params.csv_delimiter must be a single character other than a quote or line break.")
    table = raw.get("table_name")
    if table is not None and (not isinstance(table, str) or not table.strip() or len(table) > 63):
        raise Invalid("params.table_name must be a non-empty name of at most 63 characters.")
    root = raw.get("root")
    if root is not None and not isinstance(root, str):
        raise Invalid("params.root must be a string.")
    return GenerationParams(
        seed=seed, locale=normalise_locale(raw.get("locale")), root=root, records_per_file=rpf,
        null_rate=None if rate is None else float(rate), sql_dialect=dialect, table_name=table,
        csv_delimiter=delim, csv_formula_guard=bool(raw.get("csv_formula_guard", False)),
    )


class Plan:
    """A compiled dataset: the generator tree plus everything needed to write any range of it."""

    def __init__(self, gen: Gen, tree: FieldTree, params: GenerationParams, record_count: int, *,
                 xsd: bool, validator: Any = None) -> None:
        self.gen = gen
        self.tree = tree
        self.params = params
        self.record_count = record_count
        self.xsd = xsd
        self.validator = validator
        self._cache: tuple[int, Column] | None = None

    @property
    def element_name(self) -> str:
        """The record element's name: the last step of a nested root such as `orders/order`."""
        return self.tree.root_name.rsplit("/", 1)[-1]

    @property
    def table_name(self) -> str:
        name = self.element_name.strip("#/") or "records"
        return xml_name(name)

    # -- records ---------------------------------------------------------------------------

    def block(self, b: int) -> Column:
        """Block b in full (its last rows may lie beyond the dataset's end only for the last block)."""
        if self._cache is not None and self._cache[0] == b:
            return self._cache[1]
        first = b * BLOCK_SIZE
        n = min(BLOCK_SIZE, self.record_count - first)
        if n <= 0:
            raise IndexError(b)
        rows = Rows(n, np.arange(first, first + n, dtype=np.int64), self.record_count)
        col = self.gen.generate(BlockContext(self.params.seed, b, self.params.locale), rows, None)
        self._cache = (b, col)
        return col

    def chunks(self, start: int, stop: int, chunk_size: int = BLOCK_SIZE) -> Iterator[tuple[int, Column]]:
        """(first record index, column) for consecutive pieces of [start, stop): cut at block edges
        and at global multiples of `chunk_size`, so pieces never depend on where a call starts."""
        i = start
        while i < stop:
            b = i // BLOCK_SIZE
            col = self.block(b)
            end = min(stop, (b + 1) * BLOCK_SIZE, (i // chunk_size + 1) * chunk_size)
            a, e = i - b * BLOCK_SIZE, end - b * BLOCK_SIZE
            yield i, (col if a == 0 and e == col.n else take(col, np.arange(a, e)))
            i = end

    def records(self, start: int = 0, stop: int | None = None) -> list[Any]:
        stop = self.record_count if stop is None else stop
        out: list[Any] = []
        for _first, col in self.chunks(start, stop):
            out.extend(self.gen.py(col))
        return out

    # -- files and shards ------------------------------------------------------------------

    def file_ranges(self) -> list[tuple[int, int]]:
        k = self.params.records_per_file or self.record_count
        return [(s, min(s + k, self.record_count)) for s in range(0, self.record_count, k)] or [(0, 0)]

    def file_start(self, index: int) -> int:
        k = self.params.records_per_file
        return (index // k) * k if k else 0

    def shard_ranges(self, shards: int) -> list[tuple[int, int]]:
        blocks = -(-self.record_count // BLOCK_SIZE)
        per = -(-blocks // max(1, shards))
        return [(s * per * BLOCK_SIZE, min((s + 1) * per * BLOCK_SIZE, self.record_count))
                for s in range(shards) if s * per < blocks]

    # -- writing ---------------------------------------------------------------------------

    def writer(self, fmt: str) -> Any:
        if fmt == "csv":
            return CsvWriter(self.gen, self.params.csv_delimiter, self.params.csv_formula_guard)
        if fmt == "json":
            return JsonArrayWriter(self.gen)
        if fmt == "ndjson":
            return NdjsonWriter(self.gen)
        if fmt == "xml":
            return XmlWriter(self.gen, xsd=self.xsd, root_name=self.element_name)
        if fmt == "sql":
            table = self.params.table_name or self.table_name
            return SqlWriter(self.gen, dialect=self.params.sql_dialect, table_name=table)
        raise Invalid(f"Unknown format {fmt!r}; use one of {', '.join(FORMATS)}.")

    def write(self, fmt: str, stream: IO[bytes], start: int = 0, stop: int | None = None, *,
              header: bool = True, footer: bool = True, progress: Progress | None = None,
              guard: bool = True, chunk_size: int = BLOCK_SIZE) -> int:
        """Write records [start, stop) as `fmt` to a binary stream; returns the bytes written.
        `chunk_size` bounds the records encoded at once (memory); it never changes the bytes."""
        stop = self.record_count if stop is None else min(stop, self.record_count)
        w = self.writer(fmt)
        written = 0
        if header:
            written += stream.write(w.header())
        sample = self._guard_rows(start, stop) if guard and self.validator is not None else None
        if fmt == "sql":  # an INSERT batch must never straddle two chunks
            chunk_size = -(-chunk_size // SQL_BATCH) * SQL_BATCH
        for first, col in self.chunks(start, stop, max(1, chunk_size)):
            if sample is not None:
                self._check(col, first, sample, w if fmt == "xml" else None)
            written += stream.write(w.chunk(col, first, self.file_start(first)))
            if progress is not None:
                progress(col.n)
        if footer:
            written += stream.write(w.footer())
        return written

    def write_file(self, fmt: str, stream: IO[bytes], file_index: int, *, progress: Progress | None = None) -> int:
        ranges = self.file_ranges()
        if not 0 <= file_index < len(ranges):
            raise IndexError(file_index)
        a, b = ranges[file_index]
        return self.write(fmt, stream, a, b, progress=progress)

    # -- validity guard --------------------------------------------------------------------

    def _guard_rows(self, start: int, stop: int) -> set[int]:
        if self.record_count <= GUARD_ALL or stop - start <= GUARD_SAMPLE:
            return set(range(start, stop))
        return {int(x) for x in np.linspace(start, stop - 1, GUARD_SAMPLE).round()}

    def _check(self, col: Column, first: int, sample: set[int], xml_writer: Any) -> None:
        idx = [i - first for i in sorted(sample) if first <= i < first + col.n]
        if not idx:
            return
        with _gc_paused():
            self._check_rows(col, first, idx, xml_writer)

    def _check_rows(self, col: Column, first: int, idx: list[int], xml_writer: Any) -> None:
        sub = take(col, np.array(idx, dtype=np.int64))
        if self.xsd:
            xw = xml_writer if xml_writer is not None else XmlWriter(self.gen, xsd=True, root_name=self.element_name)
            texts = xw.records(sub)
            batch = getattr(self.validator, "xml_errors", None)
            if batch is not None:  # one parse for the chunk's sampled records
                for j, err in batch(texts):
                    raise Invalid(f"Generated record {first + idx[j] + 1} is invalid at {err}")
                return
            for i, text in zip(idx, texts, strict=True):
                err = self.validator.xml_error(text)
                if err:
                    raise Invalid(f"Generated record {first + i + 1} is invalid at {err}")
            return
        for i, rec in zip(idx, self.gen.py(sub), strict=True):
            err = self.validator.json_error(orjson.loads(orjson.dumps(rec)))
            if err:
                raise Invalid(f"Generated record {first + i + 1} is invalid at {err}")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while the guard validates: the validators allocate many
    short-lived objects, and the collections they trigger traverse every live object (the
    schema's whole component graph) at about the cost of the validation itself. Reference
    counting still frees those objects; collection resumes afterwards (unless it was off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile_plan(source: Any, rules: Sequence[Any] = (), params: Mapping[str, Any] | GenerationParams | None = None,
                 *, record_count: int, validator: Any = None, use_schema_validator: bool = True) -> Plan:
    """Compile a LoadedSchema (or a bare FieldTree) with rules and params into a Plan.

    With a LoadedSchema and no explicit `validator`, the schema's own RecordValidator guards the
    output (pass `use_schema_validator=False` to skip it). Raises Invalid naming the field and the
    reason when the schema or a rule cannot be satisfied.
    """
    p = params if isinstance(params, GenerationParams) else parse_params(params)
    if isinstance(record_count, bool) or not isinstance(record_count, int) or record_count < 0:
        raise Invalid("record_count must be a non-negative integer.")
    if isinstance(source, FieldTree):
        tree, xsd = source, _looks_xsd(source)
    else:
        tree = source.field_tree(p.root)
        xsd = source.type == "xsd"
        if validator is None and use_schema_validator:
            validator = source.record_validator(p.root)
    compiler = Compiler(tree, list(rules), xsd=xsd, null_rate=p.null_rate, record_count=record_count)
    gen = compiler.compile()
    plan = Plan(gen, tree, p, record_count, xsd=xsd, validator=validator)
    # fail fast: one small block exercises every generator (uniqueness capacity included)
    if record_count:
        probe = Plan(gen, tree, p, min(record_count, 64), xsd=xsd)
        first = probe.block(0)
        if validator is not None:
            # the guard checks the probe's first record now: a schema whose records it rejects
            # fails before any bytes are written, and the validator's lazy set-up (xmlschema
            # builds its checks on first use) is done with the compilation, not in the first chunk
            probe.validator = validator
            probe._check(take(first, np.arange(1)), 0, {0}, None)
        _check_unique_capacity(gen, record_count)
    return plan


def _check_unique_capacity(gen: Gen, record_count: int) -> None:
    """Unique generators check capacity against the rows' key space when they run; run them
    once more with the dataset's full key space so a too-small space fails at compile time."""
    from app.generation.generators import LeafGen, ObjectGen

    if isinstance(gen, ObjectGen):
        for slot in gen.slots:
            if slot.gen is not None:
                _check_unique_capacity(slot.gen, record_count)
    elif isinstance(gen, LeafGen) and gen.spec is not None and gen.spec.unique:
        rows = Rows(1, np.array([0], dtype=np.int64), record_count)
        gen.generate(BlockContext(0, 0, "en_US"), rows, None)


def _looks_xsd(tree: FieldTree) -> bool:
    return any(n.xml is not None for n in tree.root.walk())
