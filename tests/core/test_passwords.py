"""The argon2id cost comes from settings: cheap under test settings, OWASP's floor by default
and at least that in production; hashes made at any cost keep verifying."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from argon2 import extract_parameters
from pydantic import ValidationError

from app.core.security import passwords
from app.core.settings import Settings
from tests.conftest import CHEAP_PASSWORD_HASHING


@pytest.fixture
def restore_cost() -> Iterator[None]:
    yield
    passwords.configure_hashing(**{k.removeprefix("password_hash_"): v for k, v in CHEAP_PASSWORD_HASHING.items()})


def test_defaults_are_owasps_floor_and_production_refuses_less() -> None:
    default = Settings(env="production")
    assert (default.password_hash_time_cost, default.password_hash_memory_kib) == (2, 19456)
    with pytest.raises(ValidationError, match="below OWASP's floor"):
        Settings(env="production", password_hash_time_cost=1)
    with pytest.raises(ValidationError, match="below OWASP's floor"):
        Settings(env="production", password_hash_memory_kib=8)
    Settings(env="test", **CHEAP_PASSWORD_HASHING)  # fine outside production


def test_configured_cost_is_used_and_other_costs_still_verify(restore_cost: None) -> None:
    passwords.configure_hashing(time_cost=2, memory_kib=19456)
    strong = passwords.hash_password("correct horse")
    assert (extract_parameters(strong).time_cost, extract_parameters(strong).memory_cost) == (2, 19456)
    passwords.configure_hashing(time_cost=1, memory_kib=8)
    cheap = passwords.hash_password("correct horse")
    assert (extract_parameters(cheap).time_cost, extract_parameters(cheap).memory_cost) == (1, 8)
    for stored in (strong, cheap):
        assert passwords.verify_password("correct horse", stored)
        assert not passwords.verify_password("wrong horse", stored)
    assert not passwords.verify_password("correct horse", None)
