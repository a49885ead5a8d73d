"""Content-addressed blobs (uploaded schemas, avatars) in a local folder, under `blobs/`.
Writes are atomic: temporary name, fsync, rename — a reader never sees half a file."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def blob_path(key: str) -> str:
    """Where a blob lives relative to the store's root (the same layout in every backend)."""
    if not key.isalnum():
        raise ValueError("invalid storage key")
    return f"blobs/{key[:2]}/{key}"


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / blob_path(key)

    def put(self, content: bytes) -> str:
        key = hashlib.sha256(content).hexdigest()
        target = self.path(key)
        if target.exists():
            return key
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return key

    def get(self, key: str) -> bytes:
        return self.path(key).read_bytes()
