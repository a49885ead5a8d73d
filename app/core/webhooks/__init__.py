"""Outbound HTTP to tenant-configured endpoints: the SSRF guard, Standard Webhooks signing, the
pinned-address sender and the delivery dispatcher that drains the event outbox."""
