"""GraphQL of analytics: generation statistics over a period."""
