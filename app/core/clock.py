"""UTC time helpers. SQLite hands back naive datetimes; everything here is aware UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def as_utc(dt: datetime | None) -> datetime | None:
    if dt is None:
        return None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def iso(dt: datetime | None) -> str | None:
    """ISO 8601 UTC with a `Z`, second precision stays if present."""
    value = as_utc(dt)
    return value.isoformat().replace("+00:00", "Z") if value else None
