"""The S3-compatible store (AWS S3, MinIO, Ceph, R2; moto in the tests): `s3://bucket/prefix`,
credentials from boto3's standard chain (environment, config file, instance role).

Files are written straight into the bucket as multipart uploads (a part of `part_bytes` is sent by
a background thread while the next fills; a file smaller than one part is one PUT), so nothing is
visible under a key until it is whole. A dataset file is assembled from its shards' parts by
server-side copy (UploadPartCopy); only the pieces too small to be a multipart part on their own
(S3's 5 MiB floor) pass through the worker, and every part is read once for the sha256. Removing a
folder also aborts its unfinished multipart uploads (a worker killed mid-file leaves one).

Every call but the readiness check and a download's look at its object waits at most
TDG_STORAGE_TIMEOUT_SECONDS for an answer (a copy TDG_STORAGE_COPY_TIMEOUT_SECONDS) and is tried
again on a transient failure until TDG_STORAGE_RETRY_SECONDS have passed (retrying.py): a store
that freezes or drops connections for a while delays the work, and fails it only after that."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, cast

import boto3
import botocore.loaders
import botocore.session
from boto3.exceptions import S3UploadFailedError
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
)

from app.core.errors import StorageUnavailable
from app.core.storage.base import Produce
from app.core.storage.blobs import blob_path
from app.core.storage.files import COPY_BUFFER, WrittenFile
from app.core.storage.retrying import RetryPolicy, transient

log = logging.getLogger("tdg.storage")
MIN_PART = 5 * 1024 * 1024  # S3's smallest multipart part (all but the last)
MAX_COPY = 5 * 1024**3  # the largest range one UploadPartCopy may copy
CONNECT_SECONDS = 5.0
PROBE_SECONDS = 5  # how long a download's look at its object may wait for the store (once)
_CREDENTIALS = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403", "InvalidToken",
                "ExpiredToken", "InvalidClientTokenId", "AuthorizationHeaderMalformed"}  # fmt: skip


def describe(exc: Exception, bucket: str) -> str:
    """One sentence for a failure of the store, built from its error code only."""
    if isinstance(exc, ClientError):
        code = str(exc.response.get("Error", {}).get("Code", "error"))[:64]
        if code in {"NoSuchBucket", "404"}:
            return f"The object store has no bucket '{bucket}'."
        if code in _CREDENTIALS:
            return f"The object store refused the service's credentials ({code})."
        return f"The object store refused the request ({code})."
    if isinstance(exc, NoCredentialsError):
        return (
            "No object-store credentials were found (AWS environment variables, config file or "
            "instance role)."
        )
    if isinstance(exc, EndpointConnectionError | ConnectTimeoutError):
        return "The object store endpoint could not be reached."
    return f"The object store request failed ({exc.__class__.__name__})."


# botocore reads S3's service model (JSON files) anew for each session: 0.12 CPU s a client, four
# clients a store. The models never change in a process, so every session shares one loader;
# credentials are still resolved per session.
_LOADER = botocore.loaders.create_loader()


def boto_session() -> boto3.session.Session:
    """A new boto3 session (credentials resolved for it) reading the process's one service model."""
    session = botocore.session.Session()
    session.register_component("data_loader", _LOADER)
    return boto3.session.Session(botocore_session=session)


def make_client(
    endpoint_url: str | None, region: str | None, *, read_timeout: float = 60, attempts: int = 3
) -> Any:
    return boto_session().client(
        "s3",
        endpoint_url=endpoint_url or None,
        region_name=region or None,
        config=Config(
            connect_timeout=min(CONNECT_SECONDS, read_timeout),
            read_timeout=read_timeout,
            retries={"max_attempts": attempts, "mode": "standard"},
            max_pool_connections=16,
            signature_version="s3v4",  # presigned URLs too (MinIO and newer AWS regions refuse v2)
            # path-style works with every S3-compatible store (MinIO, Ceph, moto)
            s3={"addressing_style": "path"} if endpoint_url else {},
        ),
    )


class _Upload:
    """One object written as it is produced; visible only once `finish` completes it."""

    def __init__(
        self, store: S3Store, key: str, *, hashing: bool, give_up: Callable[[], bool] | None = None
    ) -> None:
        self.give_up = give_up
        self.store = store
        self.key = key
        self.sha256 = hashlib.sha256() if hashing else None
        self.size = 0
        self.buffer = bytearray()
        self.upload_id: str | None = None
        self.parts: list[dict[str, Any]] = []
        self._pending: Future[None] | None = None
        self.tries = 0  # of completing it

    def write(self, data: bytes) -> int:
        self.buffer += data
        if self.sha256 is not None:
            self.sha256.update(data)
        self.size += len(data)
        if len(self.buffer) >= self.store.part_bytes:
            self._send()
        return len(data)

    def _start(self) -> str:
        self._wait()
        if self.upload_id is None:
            s = self.store
            reply = s.retry.run(
                lambda: s.client.create_multipart_upload(Bucket=s.bucket, Key=self.key),
                "starting an upload",
                self.give_up,
            )
            self.upload_id = reply["UploadId"]
        assert self.upload_id is not None
        return self.upload_id

    def _wait(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def _send(self) -> None:
        upload_id = self._start()
        body, self.buffer = bytes(self.buffer), bytearray()
        number = len(self.parts) + 1
        part: dict[str, Any] = {"PartNumber": number}
        self.parts.append(part)

        def send() -> None:
            s = self.store
            reply = s.retry.run(
                lambda: s.client.upload_part(
                    Bucket=s.bucket, Key=self.key, UploadId=upload_id, PartNumber=number, Body=body
                ),
                "uploading a part",
                self.give_up,
            )
            part["ETag"] = reply["ETag"]

        self._pending = self.store.pool.submit(send)

    def copy(self, source_key: str, start: int, stop: int) -> None:
        """Bytes [start, stop) of another object as the next parts, copied inside the store."""
        if self.buffer:
            raise ValueError("A copied part cannot follow bytes still buffered.")
        upload_id = self._start()
        s = self.store
        pieces = -(-(stop - start) // MAX_COPY)
        step = -(-(stop - start) // pieces)
        for a in range(start, stop, step):
            b = min(stop, a + step)
            number = len(self.parts) + 1
            reply = s.retry.run(
                functools.partial(
                    s.copy_client.upload_part_copy,
                    Bucket=s.bucket,
                    Key=self.key,
                    UploadId=upload_id,
                    PartNumber=number,
                    CopySource={"Bucket": s.bucket, "Key": source_key},
                    CopySourceRange=f"bytes={a}-{b - 1}",
                ),
                "copying a part",
                self.give_up,
            )
            self.parts.append({"PartNumber": number, "ETag": reply["CopyPartResult"]["ETag"]})

    def finish(self) -> None:
        s = self.store
        if self.upload_id is None:
            body = bytes(self.buffer)
            s.retry.run(
                lambda: s.client.put_object(Bucket=s.bucket, Key=self.key, Body=body),
                "writing a file",
                self.give_up,
            )
            self.buffer = bytearray()
            return
        if self.buffer:
            self._send()
        self._wait()
        s.retry.run(self._complete, "completing an upload", self.give_up)
        self.upload_id = None

    def _complete(self) -> None:
        s = self.store
        self.tries += 1
        try:
            s.client.complete_multipart_upload(
                Bucket=s.bucket, Key=self.key, UploadId=self.upload_id, MultipartUpload={"Parts": self.parts}
            )
        except ClientError as exc:
            # a repeat whose first try completed the upload, its answer lost on the way back
            if self.tries < 2 or str(exc.response.get("Error", {}).get("Code")) != "NoSuchUpload":
                raise
            s.client.head_object(Bucket=s.bucket, Key=self.key)  # raises when it is not there

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._wait()
        if self.upload_id is not None:
            with contextlib.suppress(BotoCoreError, ClientError):
                s = self.store
                s.client.abort_multipart_upload(Bucket=s.bucket, Key=self.key, UploadId=self.upload_id)


class S3Store:
    def __init__(
        self,
        bucket: str,
        prefix: str,
        *,
        endpoint_url: str | None,
        region: str | None,
        part_bytes: int,
        timeout_seconds: float = 60.0,
        copy_timeout_seconds: float = 900.0,
        retry_seconds: float = 300.0,
        check_seconds: float = 3.0,
    ) -> None:
        self.bucket = bucket
        self.endpoint_url = endpoint_url
        self.prefix = prefix.strip("/")
        self.part_bytes = max(part_bytes, MIN_PART)
        # one try per call in botocore: the retries are ours, with a deadline (retrying.py)
        self.retry = RetryPolicy(retry_seconds)
        self.client = make_client(endpoint_url, region, read_timeout=timeout_seconds, attempts=1)
        # server-side copies (a part of up to 5 GiB) answer only when done: a store without AWS's
        # keep-alive during a copy (moto, a busy MinIO) can be silent for minutes
        self.copy_client = make_client(endpoint_url, region, read_timeout=copy_timeout_seconds, attempts=1)
        # the readiness check: one short try, so /readyz answers within its own timeout
        self.check_client = make_client(endpoint_url, region, read_timeout=check_seconds, attempts=1)
        # a download looks at its object before it answers: a frozen store is a 503 within seconds
        self.probe_client = make_client(endpoint_url, region, read_timeout=PROBE_SECONDS, attempts=1)
        self.pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="tdg-s3")

    @property
    def description(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"

    def key(self, relative: str) -> str:
        return f"{self.prefix}/{relative}" if self.prefix else relative

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (BotoCoreError, ClientError, S3UploadFailedError) as exc:
            raise StorageUnavailable(describe(exc, self.bucket)) from None

    def check(self) -> None:
        with self._errors():
            self.check_client.head_bucket(Bucket=self.bucket)

    def put_blob(self, content: bytes) -> str:
        key = hashlib.sha256(content).hexdigest()
        with self._errors():
            self.retry.run(
                lambda: self.client.put_object(
                    Bucket=self.bucket, Key=self.key(blob_path(key)), Body=content
                ),
                "storing a blob",
            )
        return key

    def get_blob(self, key: str) -> bytes:
        def read() -> bytes:
            body = self.client.get_object(Bucket=self.bucket, Key=self.key(blob_path(key)))["Body"]
            with contextlib.closing(body):
                return cast(bytes, body.read())

        try:
            with self._errors():
                return self.retry.run(read, "reading a blob")
        except StorageUnavailable as exc:
            if "(NoSuchKey)" in exc.detail:
                raise FileNotFoundError(blob_path(key)) from None
            raise

    def write_many(
        self,
        relatives: Sequence[str],
        produce: Produce,
        *,
        hashing: bool = True,
        give_up: Callable[[], bool] | None = None,
    ) -> list[WrittenFile]:
        uploads = [
            _Upload(self, self.key(relative), hashing=hashing, give_up=give_up) for relative in relatives
        ]
        finished: list[_Upload] = []
        try:
            with self._errors():
                produce(uploads)
                for upload in uploads:
                    upload.finish()
                    finished.append(upload)
        except BaseException:
            for upload in uploads:
                upload.abort()
            for upload in finished:  # all or none, as on the local disk
                with contextlib.suppress(BotoCoreError, ClientError):
                    self.client.delete_object(Bucket=self.bucket, Key=upload.key)
            raise
        return [
            WrittenFile(relative, u.size, u.sha256.hexdigest() if u.sha256 is not None else None)
            for relative, u in zip(relatives, uploads, strict=True)
        ]

    def concatenate(self, sources: Sequence[str], relative: str, beat: Callable[[], object]) -> WrittenFile:
        out = _Upload(self, self.key(relative), hashing=False)
        digest = hashlib.sha256()
        size = 0
        try:
            with self._errors():
                for source in sources:
                    size += self._append(out, self.key(source), digest, beat)
                out.finish()
        except BaseException:
            out.abort()
            raise
        return WrittenFile(relative, size, digest.hexdigest())

    def _append(self, out: _Upload, source_key: str, digest: Any, beat: Callable[[], object]) -> int:
        """One part onto `out`: copied in the store from where no bytes wait in `out`'s buffer and
        at least MIN_PART remain; the bytes before that are buffered. All of it is read for the hash."""
        length = int(
            self.retry.run(
                lambda: self.client.head_object(Bucket=self.bucket, Key=source_key), "reading a part's size"
            )["ContentLength"]
        )
        position = 0
        copied = False
        for chunk in self._chunks(source_key, 0, length):
            if not copied and not out.buffer and length - position >= MIN_PART:
                out.copy(source_key, position, length)
                copied = True
            digest.update(chunk)
            if not copied:  # a buffer that fills to a part is sent: a copy may start next chunk
                out.write(chunk)
            position += len(chunk)
            beat()
        return length

    def _chunks(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes [start, stop) of an object, read again from where they broke off after a
        transient failure (a new ranged GET), until no byte has come for the retry deadline."""
        position = start
        deadline = time.monotonic() + self.retry.deadline_seconds
        while position < stop:
            reply = self.retry.run(
                functools.partial(
                    self.client.get_object, Bucket=self.bucket, Key=key, Range=f"bytes={position}-{stop - 1}"
                ),
                "reading a file",
            )
            body = reply["Body"]
            try:
                while position < stop:
                    chunk = body.read(min(COPY_BUFFER, stop - position))
                    if not chunk:
                        raise OSError("an object ended before its recorded size")
                    position += len(chunk)
                    deadline = time.monotonic() + self.retry.deadline_seconds
                    yield chunk
            except Exception as exc:
                if not transient(exc) or time.monotonic() > deadline:
                    raise
                log.warning(
                    "object store: reading %s broke off at byte %s (%r), reading on", key, position, exc
                )
            finally:
                body.close()

    def place(self, source: str, relative: str) -> None:
        with self._errors():
            self.retry.run(
                lambda: self.copy_client.copy_object(
                    Bucket=self.bucket,
                    Key=self.key(relative),
                    CopySource={"Bucket": self.bucket, "Key": self.key(source)},
                ),
                "copying a file",
            )

    def _pages(self, operation: str, **params: Any) -> list[dict[str, Any]]:
        """Every page of a listing, the whole listing tried again on a transient failure."""
        paginator = self.client.get_paginator(operation)
        return self.retry.run(lambda: list(paginator.paginate(Bucket=self.bucket, **params)), "listing")

    def _uploads(self, prefix: str) -> Iterator[dict[str, Any]]:
        for page in self._pages("list_multipart_uploads", Prefix=prefix):
            yield from page.get("Uploads", [])

    def _objects(self, prefix: str) -> Iterator[str]:
        for page in self._pages("list_objects_v2", Prefix=prefix):
            yield from (item["Key"] for item in page.get("Contents", []))

    def remove(self, prefix: str) -> None:
        folder = self.key(prefix).rstrip("/") + "/"
        try:
            with self._errors():
                for upload in list(self._uploads(folder)):
                    self.retry.run(
                        functools.partial(
                            self.client.abort_multipart_upload,
                            Bucket=self.bucket,
                            Key=upload["Key"],
                            UploadId=upload["UploadId"],
                        ),
                        "aborting an upload",
                    )
                keys = list(self._objects(folder))
                for i in range(0, len(keys), 1000):
                    batch = {"Objects": [{"Key": k} for k in keys[i : i + 1000]], "Quiet": True}
                    self.retry.run(
                        functools.partial(self.client.delete_objects, Bucket=self.bucket, Delete=batch),
                        "removing files",
                    )
        except StorageUnavailable as exc:
            log.warning("removing %s from %s failed: %s", prefix, self.description, exc.detail)

    def has(self, prefix: str) -> bool:
        folder = self.key(prefix).rstrip("/") + "/"
        with self._errors():
            listed = self.retry.run(
                lambda: self.client.list_objects_v2(Bucket=self.bucket, Prefix=folder, MaxKeys=1), "listing"
            )
            if listed.get("KeyCount", 0) > 0:
                return True
            return any(True for _ in self._uploads(folder))

    def dataset_folders(self) -> list[int]:
        root = self.key("datasets/")
        ids: set[int] = set()
        with self._errors():
            for page in self._pages("list_objects_v2", Prefix=root, Delimiter="/"):
                for common in page.get("CommonPrefixes", []):
                    name = common["Prefix"][len(root) :].strip("/")
                    if name.isdigit():
                        ids.add(int(name))
            for upload in self._uploads(root):
                name = upload["Key"][len(root) :].split("/", 1)[0]
                if name.isdigit():
                    ids.add(int(name))
        return sorted(ids)

    def local_path(self, relative: str) -> Path | None:
        return None

    def open(self, relative: str) -> IO[bytes]:
        try:
            with self._errors():
                reply = self.retry.run(
                    lambda: self.client.get_object(Bucket=self.bucket, Key=self.key(relative)),
                    "opening a file",
                )
                return cast(IO[bytes], reply["Body"])
        except StorageUnavailable as exc:
            if "(NoSuchKey)" in exc.detail:
                raise FileNotFoundError(relative) from None
            raise

    def read_range(self, relative: str, start: int, stop: int) -> Iterator[bytes]:
        if stop <= start:
            return
        with self._errors():
            yield from self._chunks(self.key(relative), start, stop)

    def stat(self, relative: str) -> int | None:
        with self._errors():
            try:
                head = self.probe_client.head_object(Bucket=self.bucket, Key=self.key(relative))
            except ClientError as exc:
                if str(exc.response.get("Error", {}).get("Code")) not in {"404", "NoSuchKey"}:
                    raise
                # a HEAD has no body to say which is missing: a bucket gone is the store's fault
                self.probe_client.head_bucket(Bucket=self.bucket)
                return None
        return int(head["ContentLength"])

    def location(self, relative: str) -> tuple[str | None, str, str]:
        return self.endpoint_url, self.bucket, self.key(relative)

    def presigned_url(self, relative: str, *, filename: str, media_type: str, seconds: int) -> str:
        with self._errors():
            return cast(
                str,
                self.client.generate_presigned_url(
                    "get_object",
                    Params={
                        "Bucket": self.bucket,
                        "Key": self.key(relative),
                        "ResponseContentDisposition": f'attachment; filename="{filename}"',
                        "ResponseContentType": media_type,
                    },
                    ExpiresIn=seconds,
                ),
            )
