"""The tenancy-scoped access path: every query of a tenant-owned row lives in this package.

A repository is built from `(session, principal)` on `ScopedRepository` (base.py): its
statements start with the caller's tenant filter (none for a SuperUser, who crosses tenants), so
a missing `tenant_id` filter cannot be written by accident; project visibility is one clause
(visibility.py). `tests/core/test_no_inline_queries.py` keeps `select(` out of other modules and
bare statements out of the scoped repositories.
"""

from app.core.repositories.audit import AuditRepository

__all__ = [
    "AuditRepository",
]
