"""Domain services: the rules. Signatures are `(session, principal, ...)`; services never
commit — the unit of work (app/graphql/unit_of_work.py) commits once per operation."""
