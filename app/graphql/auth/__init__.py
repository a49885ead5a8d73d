"""GraphQL of authentication: sign-in, API tokens, two-factor status and the permission table."""
