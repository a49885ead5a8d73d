"""Base of the principal-scoped repositories: statements that start as the caller's rows.

`self.select(Model)` is already filtered to the caller's tenant (a SuperUser's to every tenant;
notifications and API tokens to the caller's own), `get_owned` answers NotFound for a row that
is missing or someone else's alike, and `paginate` is the one count-and-page. A statement over a
child or link table (no owner column of its own) names its owner with `scope=`; `unscoped` is
the visible exception, for facts that must span what the caller may see (is a schema in use?).
`tests/core/test_no_inline_queries.py` keeps bare SQL builders out of these classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from sqlalchemy import ColumnElement, Delete, Update, bindparam, delete, func, true, update
from sqlalchemy.orm import InstrumentedAttribute, Mapped
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import Select, SelectOfScalar

from app.core.auth.models import ApiToken
from app.core.error_codes import ErrorCode
from app.core.errors import NotFound
from app.core.lru import BoundedLRU
from app.core.notifications.models import Notification
from app.core.principal import Principal, TokenScope
from app.core.tenants.models import Tenant

M = TypeVar("M", bound=SQLModel)
T = TypeVar("T")
S = TypeVar("S")
# a statement of rows (several entities) or of scalars (one), as sqlmodel's `select` types them
Statement = Select[*tuple[Any, ...]] | SelectOfScalar[Any]

# rows that belong to one user: the caller's own only, whatever their role
USER_OWNED: tuple[type[SQLModel], ...] = (ApiToken, Notification)
# how NotFound names a row (default: the class name)
NAMES: dict[str, str] = {"SchemaDoc": "Schema", "ConstraintSet": "Constraint set", "ApiToken": "API token"}
NOT_FOUND_CODES: dict[str, ErrorCode] = {
    "User": ErrorCode.USER_NOT_FOUND,
    "ApiToken": ErrorCode.API_TOKEN_NOT_FOUND,
    "Dataset": ErrorCode.DATASET_NOT_FOUND,
    "Notification": ErrorCode.NOTIFICATION_NOT_FOUND,
    "SchemaDoc": ErrorCode.SCHEMA_NOT_FOUND,
    "ConstraintSet": ErrorCode.CONSTRAINT_SET_NOT_FOUND,
    "Integration": ErrorCode.INTEGRATION_NOT_FOUND,
    "WebhookDelivery": ErrorCode.DELIVERY_NOT_FOUND,
    "Tenant": ErrorCode.TENANT_NOT_FOUND,
}


# Statements built once per caller (see ScopedRepository.per_caller), keyed by everything of the
# caller a scoped statement reads
_PER_CALLER: BoundedLRU[tuple[str, Any, int, int, TokenScope | None], Any] = BoundedLRU(4096)


def _model_of(entity: Any) -> type[SQLModel] | None:
    if isinstance(entity, type) and issubclass(entity, SQLModel):
        return entity
    owner = entity.class_ if isinstance(entity, InstrumentedAttribute) else None
    if isinstance(owner, type) and issubclass(owner, SQLModel):
        return owner
    return None


class ScopedRepository:
    def __init__(self, session: AsyncSession, principal: Principal) -> None:
        self.session = session
        self.principal = principal

    def tenant_clause(self, column: Any) -> ColumnElement[bool]:
        """`column == caller's tenant`, or no restriction for a SuperUser."""
        if self.principal.is_superuser:
            return true()
        clause: ColumnElement[bool] = column == self.principal.tenant_id
        return clause

    def per_caller(self, name: str, build: Callable[[], S]) -> S:
        """The statement `build` makes for this caller, built once: its values of the request go in
        bound parameters. Building a visibility-scoped statement and SQLAlchemy's cache key of it
        cost a polled request 0.1-0.2 ms; the caller's role, tenant, id and token scope are the key,
        so a role read fresh from the database takes its own statement at once."""
        key = (
            name,
            self.principal.role,
            self.principal.tenant_id,
            self.principal.user_id,
            self.principal.scope,
        )
        statement = _PER_CALLER.get(key)
        if statement is None:
            statement = build()
            _PER_CALLER.put(key, statement)
        return statement

    def dialect_name(self) -> str:
        """The session's database dialect ("postgresql", "sqlite"), for the few functions they
        spell differently."""
        bind = self.session.bind
        if bind is None:
            raise RuntimeError(
                f"{type(self).__name__} needs a session bound to an engine to pick SQL per dialect"
            )
        return bind.dialect.name

    def owned(self, model: type[SQLModel]) -> ColumnElement[bool]:
        """The caller's rows of `model`; a model without an owner column has no rule (TypeError)."""
        if model in USER_OWNED:
            return _column(model, "user_id") == self.principal.user_id
        if model is Tenant:
            return self.tenant_clause(Tenant.id)
        tenant = getattr(model, "tenant_id", None)
        if tenant is None:
            raise TypeError(f"{model.__name__} has no owner column: name its owner with scope=")
        return self.tenant_clause(tenant)

    @overload
    def select(self, entity: type[M], /, *, scope: type[SQLModel] | None = None) -> SelectOfScalar[M]: ...
    @overload
    def select(self, entity: Any, /, *, scope: type[SQLModel] | None = None) -> SelectOfScalar[Any]: ...
    @overload
    def select(
        self, first: Any, second: Any, /, *entities: Any, scope: type[SQLModel] | None = None
    ) -> Select[*tuple[Any, ...]]: ...

    def select(self, *entities: Any, scope: type[SQLModel] | None = None) -> Statement:
        """`select(*entities)` restricted to the caller's rows of `scope` (default: the first
        entity's model). With `scope=`, the statement must join that model."""
        model = scope or _model_of(entities[0])
        if model is None:
            raise TypeError("select() of an expression needs scope=")
        return _build_select(entities).where(self.owned(model))

    @overload
    def unscoped(self, entity: type[M], /) -> SelectOfScalar[M]: ...
    @overload
    def unscoped(self, entity: Any, /) -> SelectOfScalar[Any]: ...
    @overload
    def unscoped(self, first: Any, second: Any, /, *entities: Any) -> Select[*tuple[Any, ...]]: ...

    def unscoped(self, *entities: Any) -> Statement:
        """A statement deliberately not restricted to the caller: a link table keyed by a row the
        caller already resolved, or a fact that spans rows the caller may not see."""
        return _build_select(entities)

    def update(self, model: type[SQLModel]) -> Update:
        """UPDATE of the caller's rows of `model`."""
        return update(model).where(self.owned(model))

    def delete_where(self, model: type[SQLModel], *where: Any) -> Delete:
        """DELETE of child rows keyed by a parent the caller already resolved (no owner column)."""
        return delete(model).where(*where)

    async def get_owned(self, model: type[M], row_id: int, *where: Any, message: str | None = None) -> M:
        """The row if it exists AND is the caller's; otherwise NotFound, never Forbidden, so another
        tenant's ids cannot be probed."""
        stmt = self.select(model).where(_column(model, "id") == row_id, *where)
        row = (await self.session.exec(stmt)).first()
        if row is None:
            name = NAMES.get(model.__name__, model.__name__)
            code = NOT_FOUND_CODES.get(model.__name__, ErrorCode.NOT_FOUND)
            raise NotFound(message or f"{name} {row_id} was not found.", code=code)
        return row

    @overload
    async def paginate(
        self, statement: SelectOfScalar[T], limit: int, offset: int
    ) -> tuple[list[T], int]: ...
    @overload
    async def paginate(
        self, statement: Select[*tuple[Any, ...]], limit: int, offset: int
    ) -> tuple[list[Any], int]: ...

    async def paginate(self, statement: Statement, limit: int, offset: int) -> tuple[list[Any], int]:
        """One page of an ordered statement and the total count of its rows."""
        counted = select(func.count()).select_from(statement.order_by(None).subquery())
        total = (await self.session.exec(counted)).one()
        rows = (await self.session.exec(statement.limit(limit).offset(offset))).all()
        return list(rows), int(total)

    async def paginate_per_caller(
        self, name: str, build: Callable[[], Statement], limit: int, offset: int
    ) -> tuple[list[Any], int]:
        """`paginate` of the ordered statement `build` makes, with its count and page statements
        built once per caller (`per_caller`): the limit and offset go in bound parameters."""
        counted, page = self.per_caller(name, lambda: _count_and_page(build()))
        total = (await self.session.exec(counted)).one()
        rows = (await self.session.exec(page, params={"page_limit": limit, "page_offset": offset})).all()
        return list(rows), int(total)


def _count_and_page(statement: Statement) -> tuple[SelectOfScalar[int], Statement]:
    counted = select(func.count()).select_from(statement.order_by(None).subquery())
    return counted, statement.limit(bindparam("page_limit")).offset(bindparam("page_offset"))


def _column(model: type[SQLModel], name: str) -> Mapped[Any]:
    # a column every scoped model has by convention, which SQLModel's base class does not declare
    column: Mapped[Any] = col(getattr(model, name))
    return column


def _build_select(entities: tuple[Any, ...]) -> Statement:
    # sqlmodel types `select` by arity; the repository's overloads above carry that to callers
    statement: Statement = select(*entities)
    return statement
