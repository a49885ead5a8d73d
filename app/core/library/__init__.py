"""The schema library: schemas (JSON Schema, XSD), their links to projects, constraint sets."""
