"""Authentication: sign-in, tokens (session, API, revoked), throttling, two-factor."""
