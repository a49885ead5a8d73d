"""Every supported locale's address and phone pools build from its own Faker providers: the
providers differ in what they take and have (en_US's state_abbr leaves territories out on
request, hy_AM's and vi_VN's take no argument; en_PH's phone provider has no phone_number), and a
record whose country is drawn may land on any of them."""

from __future__ import annotations

import pytest

from app.generation.values import vocab
from app.generation.values.locales import SUPPORTED_LOCALES


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_address_pool_of_every_supported_locale_builds(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vocab, "POOL_SIZE", 3)  # the provider's calls, not the pool's size, are under test
    pool = vocab._address(vocab._faker(locale, "address"), locale)
    assert {len(column) for column in pool.values()} == {3}
    assert all(pool["postcode"]) and all(pool["state_abbr"]) and all(pool["city"])


@pytest.mark.parametrize("locale", SUPPORTED_LOCALES)
def test_the_phone_pool_of_every_supported_locale_builds(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vocab, "POOL_SIZE", 3)
    numbers = vocab._phone(locale).tolist()
    assert numbers and all(any(ch.isdigit() for ch in n) for n in numbers)
