"""Where `tdg generate` writes: output files written whole then renamed (NAME.part until then),
stdout, one XML document per record in a folder, and the coverage report and labels files."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.generation.plan import Plan


def file_path(out: Path, index: int, split: bool) -> Path:
    return out.with_name(f"{out.stem}-{index}{out.suffix}") if split else out


@contextlib.contextmanager
def labels_file(plan: Plan, out: str, labels: str | None) -> Iterator[IO[bytes] | None]:
    """The labels' stream of a run with invalid records (written whole, then renamed), else None."""
    if plan.negative is None:
        yield None
        return
    path = Path(labels if labels is not None else out + ".labels.ndjson")
    tmp = path.with_name(path.name + ".part")
    with tmp.open("wb") as fh:
        yield fh
    tmp.replace(path)


def write_documents(
    plan: Plan, folder: Path, start: int, stop: int, progress: Callable[[int], None] | None
) -> list[Path]:
    """`--xml-layout documents`: records [start, stop) as NAME-0001.xml ... in `folder` (created),
    numbered from 1 over the whole count, so the parts of `--part` fill one folder."""
    from app.generation.errors import ParamsError

    if folder.exists() and not folder.is_dir():
        raise ParamsError(
            f"--xml-layout documents writes one file per record into a folder, and {folder} is a file."
        )
    folder.mkdir(parents=True, exist_ok=True)
    width = max(4, len(str(plan.record_count)))
    stem = plan.table_name
    paths: list[Path] = []
    for i, doc in enumerate(plan.xml_documents(start, stop, progress=progress), start=start + 1):
        path = folder / f"{stem}-{i:0{width}d}.xml"
        path.write_bytes(doc)
        paths.append(path)
    return paths


class Stdout:
    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def open(self, file: int) -> IO[bytes]:
        return self.stream

    def close(self, file: int) -> None:
        self.stream.flush()


class Files:
    """Output files written as `NAME.part` and renamed once whole: a run that fails or is
    interrupted leaves its `.part` file, never a file that looks complete."""

    def __init__(self, out: Path, split: bool) -> None:
        self.out, self.split = out, split
        self.paths: list[Path] = []
        self.current: tuple[Path, Path, IO[bytes]] | None = None

    def open(self, file: int) -> IO[bytes]:
        path = file_path(self.out, file, self.split)
        tmp = path.with_name(path.name + ".part")
        fh = tmp.open("wb")
        self.current = (path, tmp, fh)
        return fh

    def close(self, file: int) -> None:
        assert self.current is not None
        path, tmp, fh = self.current
        self.current = None
        fh.close()
        tmp.replace(path)
        self.paths.append(path)

    def abandon(self) -> None:
        if self.current is not None:
            self.current[2].close()
            self.current = None


def write_report(path: Path, report: dict[str, Any]) -> None:
    import json

    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
