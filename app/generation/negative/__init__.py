"""Negative test data: records that break exactly one constraint each, with a label per record.

- `instance`: forcing a value at a location of a JSON-shaped record (shared with coverage sets)
- `constraints`: the breakable (location, keyword) pairs and the labels
- `json_constraints`, `json_values`, `judge`: JSON Schema: what can be broken, how, and the check
- `xsd_constraints`, `xsd_values`, `xsd_record`, `xsd_breaker`, `xsd_judge`: XSD: what can be
  broken, the candidate texts, the record as an element tree, the breaking, the check by xmlschema
- `selection`: which records are invalid (exactly round(N x R), seeded, shard-independent)
- `engine`: `Negative`, what a Plan calls for each invalid record
Design notes: docs/generation.md ("Negative test data")."""
