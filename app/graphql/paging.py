"""List arguments shared by every paged root field (DESIGN §11)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def check_page(limit: int, offset: int) -> tuple[int, int]:
    if not 1 <= limit <= MAX_LIMIT:
        raise Invalid(f"limit must be between 1 and {MAX_LIMIT}.", code=ErrorCode.INVALID_PARAMETER, field="limit")
    if offset < 0:
        raise Invalid("offset must not be negative.", code=ErrorCode.INVALID_PARAMETER, field="offset")
    return limit, offset


def parse_instant(value: str | None, name: str, *, end_of_day: bool = False) -> datetime | None:
    """An ISO date (`2026-11-21`) or date-time; a bare end date includes that whole day."""
    if value is None or value == "":
        return None
    try:
        if len(value) == 10:
            day = datetime.fromisoformat(value).replace(tzinfo=UTC)
            return day.replace(hour=23, minute=59, second=59, microsecond=999999) if end_of_day else day
        # RFC 3339 (and the OpenAPI document's pattern) allows a lowercase t and z
        parsed = datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        raise Invalid(f"{name} must be an ISO 8601 date or date-time, got '{value[:40]}'.", code=ErrorCode.INVALID_PARAMETER, field=name) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
