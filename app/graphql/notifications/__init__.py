"""GraphQL of notifications: the caller's in-app notifications."""
