"""The schema library: upload (safe parsing into the field model), listing, representation,
project links and deletion."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require, require_owner_or, require_project
from app.core.clock import iso
from app.core.error_codes import ErrorCode
from app.core.errors import BadRequest, Conflict, Invalid, NotFound, PayloadTooLarge
from app.core.generation import field_count, load_schema, schema_repr
from app.core.library.models import ProjectSchema, SchemaDoc
from app.core.library.payloads import SchemaLink, SchemaUpload
from app.core.library.repository import ConstraintSetRepository, SchemaRepository
from app.core.models import stored_id
from app.core.principal import Principal
from app.core.projects.repository import ProjectRepository
from app.core.schema_cache import load_cached_async, problems_of, remember
from app.core.services import audit, events
from app.core.settings import Settings
from app.core.storage import store_for
from app.generation.schema.loader import MAX_SCHEMA_BYTES, MAX_SCHEMA_SIZE, LoadedSchema


def describe(doc: SchemaDoc, project_ids: list[int]) -> dict[str, Any]:
    """The schema resource as the API returns it (also the `schema.uploaded` event payload)."""
    return {
        "schema_id": doc.id,
        "name": doc.name,
        "type": doc.type,
        "version": doc.version,
        "filename": doc.filename,
        "size_bytes": doc.size_bytes,
        "sha256": doc.sha256,
        "roots": list(doc.roots),
        "default_root": doc.default_root,
        "field_count": doc.field_count,
        "created_at": iso(doc.created_at),
        "created_by": doc.created_by,
        "tenant_id": doc.tenant_id,
        "project_ids": project_ids,
    }


def upload_bytes(data: SchemaUpload) -> bytes:
    if (data.content is None) == (data.content_base64 is None):
        raise BadRequest("Missing required field 'content' (send exactly one of content, content_base64).", code=ErrorCode.REQUIRED, field="content")
    if data.content is not None:
        # a lone surrogate (GraphQL variables may carry one) has no UTF-8 form
        raw = data.content.encode("utf-8", "surrogatepass")
    else:
        try:
            raw = base64.b64decode(data.content_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise Invalid("content_base64 is not valid base64.", code=ErrorCode.INVALID_BASE64, field="content_base64") from None
    if len(raw) > MAX_SCHEMA_BYTES:
        raise PayloadTooLarge(f"The schema file is {len(raw):,} bytes; the limit is {MAX_SCHEMA_SIZE}.", code=ErrorCode.SCHEMA_TOO_LARGE, field="content")
    return raw


async def upload(
    session: AsyncSession, principal: Principal, settings: Settings, data: SchemaUpload
) -> SchemaDoc:
    require(principal, Action.SCHEMA_UPLOAD)
    raw = upload_bytes(data)
    if data.project_id is not None:
        visible = await ProjectRepository(session, principal).get(data.project_id)
        require_project(principal, visible.role, Action.PROJECT_LINK_SCHEMA)
    # the default root's field tree is built (and its fields' cost checked) with the parse: a
    # schema refused by either leaves nothing behind, stored or written
    loaded, fields = await asyncio.to_thread(_parsed_and_counted, raw, data.filename)
    store = store_for(settings)
    key = hashlib.sha256(raw).hexdigest()  # the store's key for it (content-addressed)
    # found before the first write (the upload answer lists them): a probe of a large record takes
    # seconds, which must not be spent holding SQLite's write lock. In a probe process: compiling
    # and probing a 1 MB schema here left the server hundreds of MB larger for good. Before the
    # bytes are stored, so a refusal leaves no file
    await problems_of(store, key, data.filename, None, raw=raw)
    key = await asyncio.to_thread(store.put_blob, raw)
    remember(key, loaded)
    tenant_id = principal.tenant_id
    if data.project_id is not None:
        tenant_id = visible.project.tenant_id
    doc = SchemaDoc(
        tenant_id=tenant_id,
        name=data.name or loaded.filename or f"{loaded.type} schema",
        type=loaded.type,
        version=loaded.version,
        filename=loaded.filename,
        size_bytes=len(raw),
        sha256=key,
        storage_key=key,
        roots=list(loaded.roots),
        default_root=loaded.default_root,
        field_count=fields,
        created_by=principal.user_id,
    )
    session.add(doc)
    await session.flush()
    project_ids: list[int] = []
    if data.project_id is not None:
        session.add(
            ProjectSchema(project_id=data.project_id, schema_id=stored_id(doc), linked_by=principal.user_id)
        )
        project_ids.append(data.project_id)
    audit.record(
        session,
        principal,
        "schema.upload",
        target_type="schema",
        target_id=doc.id,
        project_id=data.project_id,
        tenant_id=tenant_id,
        details={"name": doc.name, "type": doc.type, "version": doc.version, "size_bytes": doc.size_bytes},
    )
    events.record(session, "schema.uploaded", tenant_id=tenant_id, data=describe(doc, project_ids))
    await session.flush()
    return doc


def _parsed_and_counted(raw: bytes, filename: str | None) -> tuple[LoadedSchema, int]:
    loaded = load_schema(raw, filename)
    return loaded, field_count(loaded)


async def get(session: AsyncSession, principal: Principal, schema_id: int) -> SchemaDoc:
    return await SchemaRepository(session, principal).get(schema_id)


async def list_visible(
    session: AsyncSession,
    principal: Principal,
    *,
    project_id: int | None,
    q: str | None,
    limit: int,
    offset: int,
) -> tuple[list[SchemaDoc], int]:
    if project_id is not None:
        await ProjectRepository(session, principal).get(project_id)
    return await SchemaRepository(session, principal).list(
        project_id=project_id, q=q, limit=limit, offset=offset
    )


async def loaded_schema(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int
) -> tuple[SchemaDoc, LoadedSchema]:
    doc = await SchemaRepository(session, principal).get(schema_id)
    return doc, await load_cached_async(store_for(settings), doc.storage_key, doc.filename)


async def representation(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int, root: str | None
) -> dict[str, Any]:
    doc, loaded = await loaded_schema(session, principal, settings, schema_id)
    # the problems are found in a probe process meanwhile (at once when cached)
    probing = asyncio.ensure_future(problems_of(store_for(settings), doc.storage_key, doc.filename, root))
    try:
        body = await asyncio.to_thread(schema_repr, loaded, root)
    except BaseException:
        probing.cancel()
        raise
    return {"schema_id": doc.id, **body, "problems": await probing}


async def link(session: AsyncSession, principal: Principal, project_id: int, data: SchemaLink) -> None:
    visible = await ProjectRepository(session, principal).get(project_id)
    require_project(principal, visible.role, Action.PROJECT_LINK_SCHEMA)
    schemas = SchemaRepository(session, principal)
    try:
        doc = await schemas.get(data.schema_id)
    except NotFound:
        raise NotFound(f"Schema {data.schema_id} does not exist in this tenant.", code=ErrorCode.SCHEMA_NOT_FOUND, field="schema_id") from None
    if doc.tenant_id != visible.project.tenant_id:
        raise NotFound(f"Schema {data.schema_id} does not exist in this project's tenant.", code=ErrorCode.SCHEMA_NOT_FOUND, field="schema_id")
    if await schemas.link(project_id, data.schema_id) is not None:
        return
    session.add(ProjectSchema(project_id=project_id, schema_id=data.schema_id, linked_by=principal.user_id))
    audit.record(
        session,
        principal,
        "project.schema_link",
        target_type="schema",
        target_id=data.schema_id,
        project_id=project_id,
        tenant_id=visible.project.tenant_id,
    )
    await session.flush()


async def delete(session: AsyncSession, principal: Principal, schema_id: int) -> SchemaDoc:
    schemas = SchemaRepository(session, principal)
    doc = await schemas.get(schema_id)
    require_owner_or(principal, doc.created_by, Action.SCHEMA_DELETE_ANY)
    users = await schemas.dataset_count(schema_id)
    if users:
        raise Conflict(f"Schema {schema_id} is used by {users} dataset(s); delete those first.", code=ErrorCode.SCHEMA_IN_USE)
    for constraint_set in await ConstraintSetRepository(session, principal).of_schema(schema_id):
        await session.delete(constraint_set)
    await schemas.unlink_all(schema_id)
    await session.delete(doc)
    audit.record(
        session,
        principal,
        "schema.delete",
        target_type="schema",
        target_id=schema_id,
        tenant_id=doc.tenant_id,
        details={"name": doc.name},
    )
    return doc
