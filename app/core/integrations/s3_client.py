"""The S3 integration's store client: a boto3 client from an integration's config and secrets, the
bucket check behind "Test connection", and failure reasons built from the store's error code only,
so no credential or endpoint detail ever reaches the caller."""

from __future__ import annotations

import re
from typing import Any

from boto3.exceptions import S3UploadFailedError
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError

from app.core.storage.s3 import boto_session

_ERROR_CODE = re.compile(r"\(([A-Za-z0-9.]+)\)")


def s3_client(config: dict[str, Any], secrets: dict[str, str]) -> Any:
    return boto_session().client(
        "s3",
        endpoint_url=config.get("endpoint_url") or None,
        region_name=config.get("region") or "us-east-1",
        aws_access_key_id=config["access_key_id"],
        aws_secret_access_key=secrets["secret_access_key"],
        config=Config(
            connect_timeout=10,
            read_timeout=60,
            retries={"max_attempts": 3, "mode": "standard"},
            # path-style works with every S3-compatible store (MinIO, Ceph, moto)
            s3={"addressing_style": "path"},
        ),
    )


def describe_failure(exc: Exception) -> str:
    """A user-safe reason: the store's error code, never the exception text."""
    if isinstance(exc, ClientError):
        code = str(exc.response.get("Error", {}).get("Code", "error"))[:64]
        return f"The object store refused the request ({code})."
    if isinstance(exc, S3UploadFailedError):
        match = _ERROR_CODE.search(str(exc))
        return f"The object store refused the upload ({match.group(1) if match else 'error'})."
    if isinstance(exc, EndpointConnectionError):
        return "The object store endpoint could not be reached."
    return f"The object store request failed ({exc.__class__.__name__})."


def check_bucket(config: dict[str, Any], secrets: dict[str, str]) -> tuple[bool, str]:
    try:
        s3_client(config, secrets).head_bucket(Bucket=config["bucket"])
    except (BotoCoreError, ClientError, S3UploadFailedError) as exc:
        return False, describe_failure(exc)
    return True, f"Bucket '{config['bucket']}' is reachable with these credentials."
