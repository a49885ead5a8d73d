"""GraphQL object types. Field names equal the REST JSON keys (auto_camel_case is off)."""
