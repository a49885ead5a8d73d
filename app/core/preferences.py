"""Per-user notification switches: for each event, `in_app` and `webhook`, on unless turned off.
Read by the settings service, the dataset workers (in-app notifications) and the webhook
dispatcher (events a user caused are forwarded only while their `webhook` switch is on)."""

from __future__ import annotations

from typing import Any

from app.core.payloads import NOTIFICATION_EVENTS

CHANNELS = ("in_app", "webhook")


def enabled(prefs: dict[str, Any] | None, event: str, channel: str) -> bool:
    mine = (prefs or {}).get(event) or {}
    return bool(mine.get(channel, True))


def all_switches(prefs: dict[str, Any] | None) -> dict[str, dict[str, bool]]:
    return {
        event: {channel: enabled(prefs, event, channel) for channel in CHANNELS}
        for event in NOTIFICATION_EVENTS
    }
