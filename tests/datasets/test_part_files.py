"""Joining shard parts into a dataset file: the kernel copy, its fallback, and what a failure leaves."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest

from app.core.storage.files import concatenate_atomically, write_atomically, write_many_atomically


def _parts(data_dir: Path) -> tuple[list[str], bytes]:
    pieces = [os.urandom(3 * 1024 * 1024 + 17), b"", os.urandom(1024 * 1024), b"tail\n"]
    names = []
    for i, piece in enumerate(pieces):
        written = write_atomically(data_dir, f"work/s{i}/data.csv", lambda s, p=piece: s.write(p), hashing=False)
        assert written.sha256 is None and written.size_bytes == len(piece)
        names.append(written.path)
    return names, b"".join(pieces)


@pytest.mark.parametrize("kernel_copy", [True, False])
def test_parts_join_in_order_with_size_and_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                kernel_copy: bool) -> None:
    names, expected = _parts(tmp_path)
    if not kernel_copy:  # a filesystem pair the kernel cannot copy between
        def refuse(*_: object, **__: object) -> int:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        monkeypatch.setattr(os, "copy_file_range", refuse)
    beats: list[int] = []
    written = concatenate_atomically(tmp_path, names, "files/data-0000.csv", lambda: beats.append(1))
    target = tmp_path / "files" / "data-0000.csv"
    assert target.read_bytes() == expected
    assert written.size_bytes == len(expected)
    assert written.sha256 == hashlib.sha256(expected).hexdigest()
    assert beats  # the lease is renewed while joining
    assert [p.name for p in target.parent.iterdir()] == ["data-0000.csv"]  # no temporary left
    assert all((tmp_path / n).exists() for n in names)  # parts stay for a re-run until completion


def test_a_missing_part_leaves_no_file(tmp_path: Path) -> None:
    names, _ = _parts(tmp_path)
    (tmp_path / names[2]).unlink()
    with pytest.raises(FileNotFoundError):
        concatenate_atomically(tmp_path, names, "files/data-0000.csv", lambda: None)
    assert list((tmp_path / "files").iterdir()) == []


def test_parts_written_together_appear_together_or_not_at_all(tmp_path: Path) -> None:
    names = ["work/s0/data-0000.csv", "work/s0/data-0000.json"]
    written = write_many_atomically(tmp_path, names, lambda streams: [s.write(b"x" * (i + 1))
                                                                      for i, s in enumerate(streams)])
    assert [(w.size_bytes, w.sha256) for w in written] == [
        (1, hashlib.sha256(b"x").hexdigest()), (2, hashlib.sha256(b"xx").hexdigest())]

    def fail_midway(streams: list) -> None:
        streams[0].write(b"partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    again = ["work/s1/data-0000.csv", "work/s1/data-0000.json"]
    with pytest.raises(OSError):
        write_many_atomically(tmp_path, again, fail_midway)
    assert list((tmp_path / "work" / "s1").iterdir()) == []  # neither file, no temporary


def test_files_are_flushed_in_the_background_while_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long write has what it holds so far synced by a background fdatasync as it goes (the
    closing fsync then has little left); the bytes, size and hash are unchanged."""
    import app.core.storage.files as files

    monkeypatch.setattr(files, "EARLY_SYNC_BYTES", 256 * 1024)
    synced: list[int] = []
    real = os.fdatasync

    def counting(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fdatasync", counting)
    blocks = [os.urandom(64 * 1024) for _ in range(64)]  # 4 MiB in 64 KiB writes
    written = write_atomically(tmp_path, "files/data.csv", lambda s: [s.write(b) for b in blocks])
    expected = b"".join(blocks)
    assert (tmp_path / "files" / "data.csv").read_bytes() == expected
    assert written.size_bytes == len(expected) and written.sha256 == hashlib.sha256(expected).hexdigest()
    assert synced  # flushed while being written, not only at the end


@pytest.mark.parametrize("join", [False, True])
def test_a_background_flush_error_fails_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, join: bool) -> None:
    """The kernel reports a writeback error to one sync call only: the one a background flush
    met must fail the write (and leave nothing), not vanish with its thread."""
    import app.core.storage.files as files

    monkeypatch.setattr(files, "EARLY_SYNC_BYTES", 256 * 1024)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    if join:
        names, _ = _parts(tmp_path)
    monkeypatch.setattr(os, "fdatasync", failing)
    with pytest.raises(OSError) as raised:
        if join:
            concatenate_atomically(tmp_path, names, "files/data-0000.csv", lambda: None)
        else:
            write_atomically(tmp_path, "files/data.csv", lambda s: [s.write(os.urandom(64 * 1024)) for _ in range(16)])
    assert raised.value.errno == errno.EIO
    assert not (tmp_path / "files").exists() or list((tmp_path / "files").iterdir()) == []
