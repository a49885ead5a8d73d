"""GraphQL of projects: their types, root queries and mutations (members included)."""
