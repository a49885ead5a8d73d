"""GraphQL of tenants: tenants and their audit log."""
