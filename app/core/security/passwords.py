"""argon2id password hashing. Hashing is CPU-bound: callers on the request path use the async
wrappers, which run it in a worker thread so the event loop keeps serving."""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 256

# argon2id at OWASP's recommended floor (m=19 MiB, t=2, p=1) unless configured otherwise (the
# settings `password_hash_time_cost`/`_memory_kib`): ~40 ms here, where the library's default
# (64 MiB, t=3, p=4) costs ~0.4 s per login on a 2-core host. A hash keeps its own parameters, so
# hashes made at another cost still verify.
_hasher = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
# Verified when the username is unknown, so both paths cost the same (no timing oracle).
_DUMMY_HASH = _hasher.hash("tdg-dummy-password-for-timing")


def configure_hashing(time_cost: int, memory_kib: int) -> None:
    """Hash new passwords at this cost (the process's settings; tests use the cheapest)."""
    global _hasher, _DUMMY_HASH
    if (_hasher.time_cost, _hasher.memory_cost) == (time_cost, memory_kib):
        return
    _hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=1)
    _DUMMY_HASH = _hasher.hash("tdg-dummy-password-for-timing")


def check_password_policy(password: str, field: str = "password") -> None:
    """`field`: the input's name for the new password (a refusal names it)."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise Invalid(
            f"The password must be at least {MIN_PASSWORD_LENGTH} characters long.",
            code=ErrorCode.PASSWORD_TOO_SHORT,
            field=field,
        )
    if len(password) > MAX_PASSWORD_LENGTH:
        raise Invalid(
            f"The password must be at most {MAX_PASSWORD_LENGTH} characters long.",
            code=ErrorCode.PASSWORD_TOO_LONG,
            field=field,
        )


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    # verify() returns True or raises; a missing hash is checked against a dummy so the time taken
    # does not tell whether the account has a password
    try:
        _hasher.verify(password_hash or _DUMMY_HASH, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
    return password_hash is not None


async def hash_password_async(password: str) -> str:
    return await asyncio.to_thread(hash_password, password)


async def verify_password_async(password: str, password_hash: str | None) -> bool:
    return await asyncio.to_thread(verify_password, password, password_hash)
