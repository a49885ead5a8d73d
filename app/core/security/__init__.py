"""Credentials: password hashing, JWT access tokens, opaque API tokens."""
