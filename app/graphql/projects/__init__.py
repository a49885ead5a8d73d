"""GraphQL of projects: the project types."""
