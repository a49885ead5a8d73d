"""The generation API the dataset job runner calls: compile once, then write any record range.
Design notes: docs/generation.md."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from functools import cached_property
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import orjson

from app.generation.engine.budget import draw_work, expected_values
from app.generation.engine.columns import Column, take
from app.generation.engine.compiler import Compiler
from app.generation.engine.generators import BlockContext, Gen, LeafGen, Rows
from app.generation.engine.objects import ObjectGen
from app.generation.engine.uniqueness import bind_identities
from app.generation.errors import ParamsError, Unsatisfiable
from app.generation.gc_pause import gc_paused
from app.generation.model import FieldTree
from app.generation.negative.engine import Negative
from app.generation.negative.splice import spliced_chunks
from app.generation.output_formats import FORMAT_NAMES
from app.generation.params import GenerationParams, parse_params
from app.generation.writers.csv import CsvWriter
from app.generation.writers.json import JsonArrayWriter, NdjsonWriter
from app.generation.writers.sql import BATCH as SQL_BATCH
from app.generation.writers.sql import SqlWriter
from app.generation.xml_documents import XML_DECLARATION, DocumentsWriter

# records per block: the unit of shards and files split by the service (their edges are multiples)
BLOCK_SIZE = 4096
# values one drawn block may cost (`draw_work` per record x records): a block of records that
# draw many values (an ISO 20022 message draws ~13,000, 40 KB of XML) is drawn in sub-blocks of a
# power-of-two share of BLOCK_SIZE, so a run's memory does not grow with the record's size
# (2^20: ISO 20022 pain.001 in 256-record blocks, 166 MiB peak; 2^19 was 20% slower, 128 MiB)
BLOCK_DRAWS = 1 << 20
GUARD_ALL = 2000
GUARD_SAMPLE = 200
# Records hold from a few values to thousands: a run is checked in full only while it holds at most
# GUARD_ALL_VALUES scalar values (`expected_values`: 2,000 bench orders hold 52,000), and a sample
# holds at most GUARD_VALUES values' worth of records, at least GUARD_MIN. xmlschema checks ~10,000
# elements a second, so 2,000 ISO 20022 messages (1,000 values each) took 200 s to guard
GUARD_ALL_VALUES = 64_000
GUARD_VALUES = 8_192
GUARD_MIN = 8
GUARD_BATCH = 64  # sampled records validated together (after the first chunk's)
Progress = Callable[[int], None]

if TYPE_CHECKING:
    from app.generation.coverage.sets import CoverageSet


def sub_block_size(gen: Gen) -> int:
    """Records drawn at once for this generator tree: BLOCK_SIZE, halved while a block would draw
    more than BLOCK_DRAWS values (at least 1). A power of two, so BLOCK_SIZE edges stay edges; a
    function of the compiled tree only, so every process and shard draws the same sub-blocks.
    Ordinary records (the bench order: 33 draws) keep whole blocks, and their bytes."""
    work = draw_work(gen)
    size = BLOCK_SIZE
    while size > 1 and size * work > BLOCK_DRAWS:
        size //= 2
    return size


def block_ranges(record_count: int, shards: int) -> list[tuple[int, int]]:
    """[(start, stop)] cutting [0, record_count) into at most `shards` runs of whole blocks, as
    equal as blocks allow (none for no records)."""
    blocks = -(-record_count // BLOCK_SIZE)
    per = -(-blocks // max(1, shards))
    return [
        (s * per * BLOCK_SIZE, min((s + 1) * per * BLOCK_SIZE, record_count))
        for s in range(shards)
        if s * per < blocks
    ]


def part_range(record_count: int, part: int, parts: int) -> tuple[int, int]:
    """Records [start, stop) of part `part` (1-based) of `parts`: whole blocks of BLOCK_SIZE, the
    blocks shared as evenly as they go with the larger parts first, so part 1 always holds records
    and part `parts` always ends at `record_count` (a part past the blocks is empty)."""
    blocks = -(-record_count // BLOCK_SIZE)
    lo, hi = -(-(part - 1) * blocks // parts), -(-part * blocks // parts)
    return min(lo * BLOCK_SIZE, record_count), min(hi * BLOCK_SIZE, record_count)


class Plan:
    """A compiled dataset: the generator tree plus everything needed to write any range of it."""

    def __init__(
        self,
        gen: Gen,
        tree: FieldTree,
        params: GenerationParams,
        record_count: int,
        *,
        xsd: bool,
        validator: Any = None,
        block_size: int | None = None,
    ) -> None:
        self.gen = gen
        # records drawn at once (see sub_block_size); block b of `block` holds records
        # [b * block_size, (b + 1) * block_size) and is seeded with b
        self.block_size = sub_block_size(gen) if block_size is None else block_size
        self.tree = tree
        self.params = params
        self.record_count = record_count
        self.xsd = xsd
        self.validator = validator
        self._cache: tuple[int, Column] | None = None
        # the coverage set its first records are (app/generation/coverage), when it has one
        self.coverage: CoverageSet | None = None
        # params.invalid_rate: the invalid records and how to break them (negative/engine.py)
        self.negative: Negative | None = None

    @property
    def element_name(self) -> str:
        """The record element's name: the last step of a nested root such as `orders/order`."""
        return self.tree.root_name.rsplit("/", 1)[-1]

    @property
    def table_name(self) -> str:
        from app.generation.writers.xml import xml_name

        name = self.element_name.strip("#/") or "records"
        return xml_name(name)

    # -- records ---------------------------------------------------------------------------

    def block(self, b: int) -> Column:
        """Block b (of `block_size` records) in full."""
        if self._cache is not None and self._cache[0] == b:
            return self._cache[1]
        self._cache = None  # the previous block is not kept alive while this one is drawn
        first = b * self.block_size
        n = min(self.block_size, self.record_count - first)
        if n <= 0:
            raise IndexError(b)
        rows = Rows(n, np.arange(first, first + n, dtype=np.int64), self.record_count)
        bc = BlockContext(self.params.seed, b, self.params.locale, locales=self.params.locales)
        col = self.gen.generate(bc, rows, None)
        self._cache = (b, col)
        return col

    def chunks(
        self, start: int, stop: int, chunk_size: int = BLOCK_SIZE, limit: Callable[[], int] | None = None
    ) -> Iterator[tuple[int, Column]]:
        """(first record index, column) for consecutive pieces of [start, stop): cut at block edges
        and at global multiples of `chunk_size`, so pieces never depend on where a call starts.
        `limit`, asked before each piece, may end the range early (see `write_many`)."""
        i = start
        size = self.block_size
        while i < (stop := stop if limit is None else min(stop, limit())):
            b = i // size
            col = self.block(b)
            end = min(stop, (b + 1) * size, (i // chunk_size + 1) * chunk_size)
            a, e = i - b * size, end - b * size
            piece = col if a == 0 and e == col.n else take(col, np.arange(a, e))
            del col  # nor by this frame: a block of large records (UBL: 256 x 66 KB) weighs 50 MB
            yield i, piece
            del piece
            i = end

    def records(self, start: int = 0, stop: int | None = None) -> list[Any]:
        stop = self.record_count if stop is None else stop
        out: list[Any] = []
        for _first, col in self.chunks(start, stop):
            out.extend(self.gen.py(col))
            del col  # released before the next block is drawn (see `chunks`)
        return out

    # -- files and shards ------------------------------------------------------------------

    def file_ranges(self) -> list[tuple[int, int]]:
        k = self.params.records_per_file or self.record_count or 1  # no records: one empty file
        return [(s, min(s + k, self.record_count)) for s in range(0, self.record_count, k)] or [(0, 0)]

    def file_start(self, index: int) -> int:
        k = self.params.records_per_file
        return (index // k) * k if k else 0

    def shard_ranges(self, shards: int) -> list[tuple[int, int]]:
        return block_ranges(self.record_count, shards)

    # -- writing ---------------------------------------------------------------------------

    def writer(self, fmt: str) -> Any:
        if fmt == "csv":
            return CsvWriter(self.gen, self.params.csv_delimiter, self.params.csv_formula_guard)
        if fmt == "json":
            return JsonArrayWriter(self.gen)
        if fmt == "ndjson":
            return NdjsonWriter(self.gen)
        if fmt == "xml":
            from app.generation.writers.xml import XmlWriter

            xml = XmlWriter(self.gen, xsd=self.xsd, root_name=self.element_name)
            # documents: one document per record, following each other (the service zips them)
            return DocumentsWriter(xml) if self.params.xml_layout == "documents" else xml
        if fmt == "sql":
            table = self.params.table_name or self.table_name
            return SqlWriter(self.gen, dialect=self.params.sql_dialect, table_name=table)
        raise ParamsError(f"Unknown format {fmt!r}; use one of {', '.join(FORMAT_NAMES)}.")

    def write(
        self,
        fmt: str,
        stream: IO[bytes],
        start: int = 0,
        stop: int | None = None,
        *,
        header: bool = True,
        footer: bool = True,
        progress: Progress | None = None,
        guard: bool = True,
        chunk_size: int = BLOCK_SIZE,
        guard_rows: Collection[int] | None = None,
        labels: IO[bytes] | None = None,
    ) -> int:
        """Write records [start, stop) as `fmt` to a binary stream; returns the bytes written.
        `chunk_size` bounds the records encoded at once (memory); it never changes the bytes."""
        return self.write_many(
            [(fmt, stream)],
            start,
            stop,
            header=header,
            footer=footer,
            progress=progress,
            guard=guard,
            chunk_size=chunk_size,
            guard_rows=guard_rows,
            labels=labels,
        )[0]

    def write_many(
        self,
        targets: Sequence[tuple[str, IO[bytes]]],
        start: int = 0,
        stop: int | None = None,
        *,
        header: bool = True,
        footer: bool = True,
        progress: Progress | None = None,
        guard: bool = True,
        chunk_size: int = BLOCK_SIZE,
        limit: Callable[[], int] | None = None,
        guard_rows: Collection[int] | None = None,
        labels: IO[bytes] | None = None,
    ) -> list[int]:
        """`write` for several (format, stream) targets at once: each chunk is generated (and
        guarded) once and handed to every writer, instead of once per format. The bytes of each
        stream are those of `write`; returns the bytes written to each. `progress` counts one
        per record and target.

        `limit` lets a running shard give the rest of its range away: asked before each chunk,
        it returns where the range now ends (a block edge at or after the records written so
        far, at most `stop`); the footer is written only when the range still ends at `stop`.
        `guard_rows`: the records the guard checks, when a larger write this range is a piece of
        chose them (`guard_rows` of the whole range; see fanout), instead of this range's sample.

        With `plan.negative`, its invalid records are written broken (one constraint each) in
        place of the generated ones, and their labels (NDJSON) go to `labels` when given."""
        stop = self.record_count if stop is None else min(stop, self.record_count)
        writers = [(self.writer(fmt), stream) for fmt, stream in targets]
        written = [0] * len(writers)
        if header:
            for i, (w, stream) in enumerate(writers):
                written[i] += stream.write(w.header())
        if any(fmt == "sql" for fmt, _ in targets):  # an INSERT batch must never straddle two chunks
            chunk_size = -(-chunk_size // SQL_BATCH) * SQL_BATCH
        xml_writer = next(
            (w for (fmt, _), (w, _) in zip(targets, writers, strict=True) if fmt == "xml"), None
        )
        guarded = (
            _Guard(
                self, set(guard_rows) if guard_rows is not None else self.guard_rows(start, stop), xml_writer
            )
            if guard and self.validator
            else None
        )
        end = start
        for first, col in self.chunks(start, stop, max(1, chunk_size), limit):
            end = first + col.n
            if guarded is not None:
                guarded.add(col, first)
            file_start = self.file_start(first)
            bad = self.negative.rows(first, first + col.n) if self.negative is not None else None
            if bad is not None and bad.size:
                assert self.negative is not None
                chunks = spliced_chunks(self.negative, targets, writers, col, first, file_start, bad, labels)
                for i, (_w, stream) in enumerate(writers):
                    written[i] += stream.write(chunks[i])
            else:
                for i, (w, stream) in enumerate(writers):
                    written[i] += stream.write(w.chunk(col, first, file_start))
            if progress is not None:
                progress(col.n * len(writers))
            del col  # not alive while `chunks` draws the next block
        if guarded is not None:
            guarded.flush()
        if footer and end == stop:
            for i, (w, stream) in enumerate(writers):
                written[i] += stream.write(w.footer())
        return written

    def xml_documents(
        self, start: int = 0, stop: int | None = None, *, progress: Progress | None = None, guard: bool = True
    ) -> Iterator[bytes]:
        """`params.xml_layout` "documents": records [start, stop), each as an XML document of its
        own (the declaration, then the record element with its namespaces), guarded as `write`."""
        stop = self.record_count if stop is None else min(stop, self.record_count)
        writer = self.writer("xml")
        guarded = _Guard(self, self.guard_rows(start, stop), writer) if guard and self.validator else None
        for first, col in self.chunks(start, stop):
            if guarded is not None:
                guarded.add(col, first)
            for text in writer.records(col):
                yield XML_DECLARATION + text.encode() + b"\n"
            if progress is not None:
                progress(col.n)
            del col  # released before the next block is drawn (see `chunks`)
        if guarded is not None:
            guarded.flush()

    def check_xml_layout(self) -> None:
        """The documents layout needs a record element the XSD declares globally: a document of
        a local element is valid against no declaration of the schema."""
        if self.params.xml_layout != "documents" or not self.xsd:
            return
        element = getattr(self.validator, "_element", None)
        if element is not None:
            local = not (element.is_global() or getattr(element, "ref", None) is not None)
        else:
            local = "/" in self.tree.root_name
        if local:
            parent = self.tree.root_name.rsplit("/", 1)[0] if "/" in self.tree.root_name else "its parent"
            raise ParamsError(
                f"params.xml_layout 'documents' writes each record as a document of its own, which the XSD "
                f"allows only for a globally declared element, and {self.element_name!r} is declared inside "
                f"{parent!r}: choose the root {parent!r} (each document then holds one of those), or keep "
                f"the 'container' layout.",
                field="params.xml_layout",
            )

    def write_file(
        self,
        fmt: str,
        stream: IO[bytes],
        file_index: int,
        *,
        progress: Progress | None = None,
        labels: IO[bytes] | None = None,
    ) -> int:
        ranges = self.file_ranges()
        if not 0 <= file_index < len(ranges):
            raise IndexError(file_index)
        a, b = ranges[file_index]
        return self.write(fmt, stream, a, b, progress=progress, labels=labels)

    # -- validity guard --------------------------------------------------------------------

    def guard_rows(self, start: int, stop: int) -> set[int]:
        """The records of [start, stop) the guard checks: all of a small run, else evenly spaced
        ones (the first and last included); see GUARD_ALL_VALUES and GUARD_VALUES."""
        values = max(1.0, self.record_values)
        count = stop - start
        if (self.record_count <= GUARD_ALL or count <= GUARD_SAMPLE) and count * values <= GUARD_ALL_VALUES:
            return set(range(start, stop))
        if count <= 0:
            return set()
        size = min(GUARD_SAMPLE, max(GUARD_MIN, int(GUARD_VALUES // values)), count)
        return {int(x) for x in np.linspace(start, stop - 1, size).round()}

    @cached_property
    def record_values(self) -> float:
        """The scalar values a record is expected to hold (what the guard's cost follows)."""
        return expected_values(self.gen)

    def _check(self, col: Column, first: int, sample: set[int], xml_writer: Any) -> None:
        guard = _Guard(self, sample, xml_writer)
        guard.add(col, first)
        guard.flush()


class _Guard:
    """The sampled records of one write, validated in batches: the first chunk's at once (a
    schema the guard rejects fails before much is written), later ones once `GUARD_BATCH` are
    pending and at the end. One parse and one collector pause per batch instead of per chunk."""

    def __init__(self, plan: Plan, sample: set[int], xml_writer: Any) -> None:
        self.plan = plan
        self.sample = sorted(sample)
        self.xml_writer = xml_writer
        self.numbers: list[int] = []  # 1-based record numbers of the pending records
        self.pending: list[Any] = []  # their XML text (XSD) or JSON form
        self.first_chunk = True

    def add(self, col: Column, first: int) -> None:
        lo, hi = bisect_left(self.sample, first), bisect_left(self.sample, first + col.n)
        if lo < hi:
            idx = [i - first for i in self.sample[lo:hi]]
            sub = take(col, np.array(idx, dtype=np.int64))
            plan = self.plan
            if plan.xsd:
                if self.xml_writer is None:
                    from app.generation.writers.xml import XmlWriter

                    self.xml_writer = XmlWriter(plan.gen, xsd=True, root_name=plan.element_name)
                self.pending.extend(self.xml_writer.records(sub))
            else:
                self.pending.extend(plan.gen.py(sub))
            self.numbers.extend(first + i + 1 for i in idx)
        if self.first_chunk or len(self.pending) >= GUARD_BATCH:
            self.first_chunk = False
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        numbers, pending = self.numbers, self.pending
        self.numbers, self.pending = [], []
        validator = self.plan.validator
        with gc_paused():
            if self.plan.xsd:
                batch = getattr(validator, "xml_errors", None)
                if batch is not None:  # one parse for the batch
                    for j, err in batch(pending):
                        raise Unsatisfiable(f"Generated record {numbers[j]} is invalid at {err}")
                    return
                for number, text in zip(numbers, pending, strict=True):
                    err = validator.xml_error(text)
                    if err:
                        raise Unsatisfiable(f"Generated record {number} is invalid at {err}")
                return
            for number, rec in zip(numbers, pending, strict=True):
                err = validator.json_error(orjson.loads(orjson.dumps(rec)))
                if err:
                    raise Unsatisfiable(f"Generated record {number} is invalid at {err}")


def compile_plan(
    source: Any,
    rules: Sequence[Any] = (),
    params: Mapping[str, Any] | GenerationParams | None = None,
    *,
    record_count: int,
    validator: Any = None,
    use_schema_validator: bool = True,
) -> Plan:
    """Compile a LoadedSchema (or a bare FieldTree) with rules and params into a Plan.

    With a LoadedSchema and no explicit `validator`, the schema's own RecordValidator guards the
    output (pass `use_schema_validator=False` to skip it). Raises Unsatisfiable naming the field and the
    reason when the schema or a rule cannot be satisfied.
    """
    p = params if isinstance(params, GenerationParams) else parse_params(params)
    compiled = compile_generators(
        source,
        rules,
        p,
        record_count=record_count,
        validator=validator,
        use_schema_validator=use_schema_validator,
    )
    return plan_of(compiled, p)


class Compiled:
    """What compiling builds that no seed or locale changes: the generator tree for a schema, its
    root, rules, null rate, records per file and record count. Plans with other seeds (`plan_of`)
    share it: generators keep no state between blocks but idempotent memos."""

    def __init__(self, gen: Gen, tree: FieldTree, record_count: int, *, xsd: bool, validator: Any) -> None:
        self.gen = gen
        self.tree = tree
        self.record_count = record_count
        self.xsd = xsd
        self.validator = validator
        self.block_size = sub_block_size(gen)
        self.capacity_checked = False  # _check_unique_capacity passed (it draws with a fixed seed)


def compile_generators(
    source: Any,
    rules: Sequence[Any],
    params: GenerationParams,
    *,
    record_count: int,
    validator: Any = None,
    use_schema_validator: bool = True,
) -> Compiled:
    """The seed-free half of `compile_plan`: what it compiles before its probe."""
    p = params
    count: object = record_count  # checked as untrusted input: a caller may pass anything
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ParamsError("record_count must be a non-negative integer.", field="record_count")
    if isinstance(source, FieldTree):
        tree, xsd = source, _looks_xsd(source)
    else:
        tree = source.field_tree(p.root)
        xsd = source.type == "xsd"
        if validator is None and use_schema_validator:
            validator = source.record_validator(p.root)
    compiler = Compiler(
        tree,
        list(rules),
        xsd=xsd,
        null_rate=p.null_rate,
        record_count=record_count,
        assertion_render=_xml_records,
    )
    gen = compiler.compile()
    bind_identities(gen, p.records_per_file)
    return Compiled(gen, tree, record_count, xsd=xsd, validator=validator)


def plan_of(compiled: Compiled, p: GenerationParams) -> Plan:
    """The Plan of `compiled` with these params (their seed and locale), after the fail-fast
    probe `compile_plan` runs; the capacity check runs once per `compiled`."""
    gen, tree, xsd, validator = compiled.gen, compiled.tree, compiled.xsd, compiled.validator
    record_count = compiled.record_count
    size = compiled.block_size
    plan = Plan(gen, tree, p, record_count, xsd=xsd, validator=validator, block_size=size)
    plan.check_xml_layout()
    # fail fast: one small block exercises every generator (uniqueness capacity included)
    if record_count:
        probe = Plan(gen, tree, p, min(record_count, 64), xsd=xsd, block_size=size)
        first = probe.block(0)
        if probe.record_count == record_count:  # the plan's own block 0 (a preview's): drawn once
            plan._cache = (0, first)
        if validator is not None:
            # the guard checks the probe's first record now: a schema whose records it rejects
            # fails before any bytes are written, and the validator's lazy set-up (xmlschema
            # builds its checks on first use) is done with the compilation, not in the first chunk
            probe.validator = validator
            probe._check(take(first, np.arange(1)), 0, {0}, None)
        if not compiled.capacity_checked:
            _check_unique_capacity(gen, record_count)
            compiled.capacity_checked = True
    return plan


def _xml_records(gen: ObjectGen) -> Callable[[Column], list[str]]:
    """An xs:assert element's rows as XML, what its check reads (the engine does not import the writers)."""
    from app.generation.writers.xml import XmlWriter

    return XmlWriter(gen, xsd=True, root_name=gen.name).records


def _check_unique_capacity(gen: Gen, record_count: int, seen: set[int] | None = None) -> None:
    """Unique generators check capacity against the rows' key space when they run; run them
    once more with the dataset's full key space so a too-small space fails at compile time.
    Generators shared between positions (a DAG) are visited once."""
    seen = set() if seen is None else seen
    if id(gen) in seen:
        return
    seen.add(id(gen))
    if isinstance(gen, ObjectGen):
        for slot in gen.slots:
            if slot.gen is not None:
                _check_unique_capacity(slot.gen, record_count, seen)
    elif isinstance(gen, LeafGen) and gen.spec is not None and gen.spec.unique:
        rows = Rows(1, np.array([0], dtype=np.int64), record_count)
        gen.generate(BlockContext(0, 0, "en_US"), rows, None)


def _looks_xsd(tree: FieldTree) -> bool:
    return any(n.xml is not None for n in tree.root.walk())
