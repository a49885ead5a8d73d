"""Value categories a constraint rule can ask for (`{"path": "contact", "category": "email"}`).

The registry is read by the constraint-set validator (does the category fit the field's kind?),
by `GET /constraints/categories`, and by the generator (which column generator to use).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.generation.fieldmodel import Kind


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    description: str
    kinds: frozenset[Kind]  # field kinds the category can fill
    example: str


_STR = frozenset({Kind.STRING})

CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category("email", "A plausible e-mail address, derived from the record's name when present.", _STR,
                 "jane.doe@example.com"),
        Category("first_name", "A given name in the dataset's locale.", _STR, "Jane"),
        Category("last_name", "A family name in the dataset's locale.", _STR, "Doe"),
        Category("city", "A city name in the dataset's locale.", _STR, "Springfield"),
        Category("uuid", "A random RFC 4122 version-4 UUID.", _STR, "3f2b9c1e-8d4a-4e0b-9a57-2c1d5e6f7a8b"),
    )
}
