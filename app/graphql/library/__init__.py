"""GraphQL of the schema library: schema and constraint-set types, root queries and mutations."""
