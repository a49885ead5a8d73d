"""User email addresses: reserved test domains are accepted (this product makes test data),
every other special-use or malformed address is still refused."""

from __future__ import annotations

import pytest

from app.core.errors import Invalid
from app.core.tenants.payloads import TenantCreate
from app.core.users.payloads import UserInvite
from app.core.validation import parse


@pytest.mark.parametrize(("given", "stored"), [
    ("ops@acme.test", "ops@acme.test"),
    ("tess@example.test", "tess@example.test"),
    ("admin@acme.example", "admin@acme.example"),
    ("Someone@Mail.Example.COM", "Someone@mail.example.com"),
    ("  spaced@acme.test ", "spaced@acme.test"),
])
def test_accepted_addresses(given: str, stored: str) -> None:
    assert parse(UserInvite, {"username": "tess", "email": given}).email == stored


@pytest.mark.parametrize(("given", "reason"), [
    ("nobody@test", "It should have a period"),
    ("x@host.invalid", "special-use or reserved"),
    ("x@localhost", "It should have a period"),
    ("x@my.local", "special-use or reserved"),
    ("no-at-sign.test", "must have an @-sign"),
    ("a\nb@acme.test", "line feed"),
    ("x" * 250 + "@acme.test", "Length must not exceed 254"),
])
def test_refused_addresses(given: str, reason: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse(TenantCreate, {"name": "t", "admin_username": "adm", "admin_email": given, "admin_password": "x" * 12})
    assert "Invalid value for 'admin_email': value is not a valid email address" in caught.value.detail
    assert reason in caught.value.detail
