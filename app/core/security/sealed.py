"""Secrets at rest (TOTP seeds, integration credentials): Fernet (AES-128-CBC + HMAC-SHA256) with
a key derived by HKDF from the service secret, so a database dump alone reveals none of them."""

from __future__ import annotations

import base64
import json
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_INFO = b"tdg secrets at rest v1"


@lru_cache(maxsize=8)
def _fernet(service_secret: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(service_secret.encode())
    return Fernet(base64.urlsafe_b64encode(key))


def seal(service_secret: str, plaintext: str) -> str:
    return _fernet(service_secret).encrypt(plaintext.encode()).decode("ascii")


def unseal(service_secret: str, token: str) -> str:
    """Decrypt; a token sealed under another service secret raises ValueError."""
    try:
        return _fernet(service_secret).decrypt(token.encode("ascii")).decode()
    except InvalidToken:
        raise ValueError("the sealed value cannot be opened with this service secret") from None


def unseal_json(service_secret: str, token: str | None) -> dict[str, str]:
    """A sealed JSON object (an integration's secrets); nothing sealed reads as {}."""
    return json.loads(unseal(service_secret, token)) if token else {}
