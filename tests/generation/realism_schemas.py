"""Schemas written to measure how real generated records look (issue 32): a CRM contact (phones,
a street, free texts, a company, an IBAN and a five-country enum) and a checkout order (the
country inside a nested address, the phone beside it). Read by tests/generation/test_realism.py
and benchmarks/realism.py (--variety)."""

from __future__ import annotations

import re
from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"
COUNTRIES = ["US", "DE", "FR", "GB", "NL"]
_STR: dict[str, Any] = {"type": "string"}

CRM_CONTACT: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "CrmContact",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "id", "first_name", "last_name", "email", "phone", "mobile_phone", "company", "job_title",
        "street", "city", "state", "postal_code", "country", "iban", "notes", "description",
        "comment", "bio", "segment",
    ],
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "first_name": {"type": "string", "maxLength": 40},
        "last_name": {"type": "string", "maxLength": 40},
        "email": {"type": "string", "format": "email"},
        "phone": _STR,
        "mobile_phone": _STR,
        "company": _STR,
        "job_title": _STR,
        "street": {"type": "string", "maxLength": 120},
        "city": _STR,
        "state": _STR,
        "postal_code": _STR,
        "country": {"type": "string", "enum": COUNTRIES},
        "iban": _STR,
        "notes": _STR,
        "description": {"type": "string", "maxLength": 500},
        "comment": _STR,
        "bio": _STR,
        "segment": {"type": "string", "enum": ["smb", "mid", "enterprise", "public"]},
    },
}  # fmt: skip

CHECKOUT_ORDER: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "CheckoutOrder",
    "type": "object",
    "additionalProperties": False,
    "required": ["order_id", "customer", "phone", "shipping_address", "items", "total", "status", "comment"],
    "properties": {
        "order_id": {"type": "string", "format": "uuid"},
        "customer": {
            "type": "object",
            "required": ["first_name", "last_name", "email"],
            "properties": {
                "first_name": _STR,
                "last_name": _STR,
                "email": {"type": "string", "format": "email"},
            },
        },
        "phone": _STR,
        "shipping_address": {
            "type": "object",
            "additionalProperties": False,
            "required": ["street", "city", "postcode", "country"],
            "properties": {
                "street": _STR,
                "city": _STR,
                "postcode": _STR,
                "country": {"enum": ["United States", "Germany", "France", "United Kingdom", "Netherlands"]},
            },
        },
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "items": {
                "type": "object",
                "required": ["sku", "quantity", "price"],
                "properties": {
                    "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                    "quantity": {"type": "integer", "minimum": 1, "maximum": 9},
                    "price": {"type": "number", "minimum": 0.5, "maximum": 500, "multipleOf": 0.01},
                },
            },
        },
        "total": {"type": "number", "minimum": 0, "multipleOf": 0.01},
        "status": {"enum": ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"]},
        "comment": {"type": ["string", "null"], "maxLength": 300},
    },
}

# what a postal code of each country looks like, and its telephone calling code
POSTCODES = {
    "US": re.compile(r"[0-9]{5}"),
    "DE": re.compile(r"[0-9]{5}"),
    "FR": re.compile(r"[0-9]{5}"),
    "GB": re.compile(r"[A-Z]{1,2}[0-9][0-9A-Z]? ?[0-9][A-Z]{2}"),
    "NL": re.compile(r"[1-9][0-9]{3} ?[A-Z]{2}"),
}
CALLING = {"US": "1", "DE": "49", "FR": "33", "GB": "44", "NL": "31"}
NAMES = {"United States": "US", "Germany": "DE", "France": "FR", "United Kingdom": "GB", "Netherlands": "NL"}
PHONE_LIKE = ("phone", "mobile_phone")
STREETS = ("street",)
TEXTS = ("notes", "description", "comment", "bio")
PREVIEWED = ("company", "job_title", "city")


def flat(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The record's scalar fields by dotted path (arrays left out)."""
    out: dict[str, Any] = {}
    for k, v in record.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[prefix + k] = v
    return out


def distinct_share(values: list[Any]) -> float:
    kept = [v for v in values if v is not None]
    return len(set(kept)) / len(kept) if kept else 1.0


def windows_with_repeat(values: list[Any], width: int = 10) -> float:
    """The share of consecutive `width`-record previews in which a value shows twice."""
    starts = range(0, len(values) - width + 1, width)
    hits = sum(len(set(values[i : i + width])) < width for i in starts)
    return hits / max(1, len(starts))


def country_agreement(record: dict[str, Any], code: str, postcode: str, phones: list[str]) -> list[str]:
    """What in a record does not belong to its country `code` (empty when all of it does)."""
    wrong = []
    if not POSTCODES[code].fullmatch(postcode):
        wrong.append(f"postcode {postcode!r}")
    for phone in phones:
        text = phone.strip()
        if text.startswith("+") and not re.sub(r"[^0-9]", "", text).startswith(CALLING[code]):
            wrong.append(f"phone {phone!r}")
    iban = record.get("iban")
    if iban is not None and code != "US" and not iban.startswith(code):
        wrong.append(f"iban {iban!r}")
    return wrong
