"""Opaque secrets (API tokens, invitation tokens): 256-bit random, only their SHA-256 is stored."""

from __future__ import annotations

import hashlib
import secrets

API_TOKEN_PREFIX = "tdg_"


def new_api_token() -> str:
    return API_TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_invitation_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def looks_like_api_token(token: str) -> bool:
    return token.startswith(API_TOKEN_PREFIX)
