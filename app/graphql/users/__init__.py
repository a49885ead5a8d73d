"""GraphQL of users: the users of a tenant, invitations, and the caller's own account settings."""
