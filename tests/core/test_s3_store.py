"""The S3 store against a real S3 server (moto's, over HTTP): files written as multipart uploads and
visible only once whole, files assembled from parts of every size around S3's 5 MiB floor (copied
in the store where they can be) with the right bytes and sha256, removal aborting unfinished
uploads, ranges and presigned URLs."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import httpx
import pytest

from app.core.errors import StorageUnavailable
from app.core.storage.files import Sink
from app.core.storage.s3 import MIN_PART, S3Store
from tests.support.s3_server import objects, unfinished_uploads

MB = 1024 * 1024


@pytest.fixture
def store(s3_server: str, s3_bucket: str) -> S3Store:
    return S3Store(s3_bucket, "pre", endpoint_url=s3_server, region="us-east-1", part_bytes=MIN_PART)


def _write(store: S3Store, relative: str, data: bytes) -> None:
    def produce(streams: Sequence[Sink]) -> None:
        for i in range(0, len(data), 300_000):  # the engine writes in pieces
            streams[0].write(data[i : i + 300_000])

    (written,) = store.write_many([relative], produce)
    assert written.size_bytes == len(data) and written.sha256 == hashlib.sha256(data).hexdigest()


def test_write_many_is_all_or_nothing(store: S3Store, s3_server: str, s3_bucket: str) -> None:
    big, small = os.urandom(12 * MB), b"tiny"
    _write(store, "datasets/1/work/a.bin", big)
    _write(store, "datasets/1/work/b.bin", small)
    with store.open("datasets/1/work/a.bin") as fh:
        assert fh.read() == big
    assert objects(s3_server, s3_bucket) == ["pre/datasets/1/work/a.bin", "pre/datasets/1/work/b.bin"]

    def failing(streams: Sequence[Sink]) -> None:
        streams[0].write(os.urandom(11 * MB))  # two parts sent already
        streams[1].write(b"x")
        raise RuntimeError("the generator refused")

    with pytest.raises(RuntimeError):
        store.write_many(["datasets/2/x.bin", "datasets/2/y.bin"], failing)
    assert objects(s3_server, s3_bucket, "pre/datasets/2/") == []
    assert unfinished_uploads(s3_server, s3_bucket) == []


@pytest.mark.parametrize(
    ("sizes", "copies"),
    [
        ([3 * MB, 7 * MB, 1 * MB, 6 * MB], 1),  # small before large: buffered to a part, the rest copied
        ([6 * MB, 6 * MB, 2 * MB], 2),  # copies, then a small last part
        ([1 * MB, 2 * MB, 100], 0),  # all below the floor: one PUT
        ([0, 5 * MB, 0], 1),  # empty parts
        ([], 0),
    ],
)
def test_concatenate_from_parts_of_any_size(
    store: S3Store, s3_server: str, s3_bucket: str, sizes: list[int], copies: int
) -> None:
    parts = [os.urandom(n) for n in sizes]
    for i, data in enumerate(parts):
        _write(store, f"datasets/3/work/p{i}", data)
    beats: list[int] = []
    copied: list[str] = []
    for client in (store.client, store.copy_client):  # copies go through the long-read-timeout client
        client.meta.events.register("before-call.s3.UploadPartCopy", lambda **kw: copied.append("copy"))
    written = store.concatenate(
        [f"datasets/3/work/p{i}" for i in range(len(parts))], "datasets/3/files/out", lambda: beats.append(1)
    )
    whole = b"".join(parts)
    assert written.size_bytes == len(whole) and written.sha256 == hashlib.sha256(whole).hexdigest()
    with store.open("datasets/3/files/out") as fh:
        assert fh.read() == whole
    assert unfinished_uploads(s3_server, s3_bucket) == []
    assert len(copied) == copies  # server-side, never through the worker


def test_place_range_presign_and_remove(store: S3Store, s3_server: str, s3_bucket: str) -> None:
    data = os.urandom(2 * MB)
    _write(store, "datasets/4/work/s0000-a1/data-0000.csv", data)
    store.place("datasets/4/work/s0000-a1/data-0000.csv", "datasets/4/files/data-0000.csv")
    assert b"".join(store.read_range("datasets/4/files/data-0000.csv", 10, 100)) == data[10:100]
    url = store.presigned_url(
        "datasets/4/files/data-0000.csv", filename="d.csv", media_type="text/csv", seconds=60
    )
    r = httpx.get(url)
    assert r.status_code == 200 and r.content == data
    assert r.headers["content-disposition"] == 'attachment; filename="d.csv"'

    # a worker killed mid-file leaves an unfinished multipart upload: removal aborts it
    key = store.key("datasets/4/work/s0001-a1/data-0001.csv")
    store.client.create_multipart_upload(Bucket=s3_bucket, Key=key)
    assert store.has("datasets/4/work") and store.dataset_folders() == [4]
    store.remove("datasets/4/work")
    assert not store.has("datasets/4/work") and store.has("datasets/4")
    assert unfinished_uploads(s3_server, s3_bucket) == []
    store.remove("datasets/4")
    assert objects(s3_server, s3_bucket) == [] and store.dataset_folders() == []


def test_missing_blob_and_missing_bucket(store: S3Store, s3_server: str) -> None:
    with pytest.raises(FileNotFoundError):
        store.get_blob("ab" * 32)
    gone = S3Store("no-such-bucket", "", endpoint_url=s3_server, region="us-east-1", part_bytes=MIN_PART)
    with pytest.raises(StorageUnavailable) as info:
        gone.check()
    assert info.value.detail == "The object store has no bucket 'no-such-bucket'."
