"""One scenario per mutation row (and query row with a body) of the REST route table, for the REST-vs-GraphQL parity test.

A scenario prepares what its mutation acts on in a `World` (a tenant with an Admin, a Manager, a
Tester, a project, a schema and a constraint set) and returns the call. The parity test runs it
twice, in twin worlds: once over REST, once as the stored operation over POST /graphql with the
variables the facade would build, and compares the answers."""

from __future__ import annotations

import base64
import io
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from tests.api_client import USER_PASSWORD, Actor, Api, unique

PERSON_SCHEMA = (
    '{"type": "object", "required": ["name", "age"], "properties": {'
    '"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}}'
)
MISSING = 2**31 - 1  # a valid id no row has: the shaped not-found error is compared


@dataclass
class World:
    api: Api
    tenant_id: int
    admin: Actor
    manager: Actor
    tester: Actor
    project_id: int
    schema_id: int
    constraint_id: int


@dataclass
class Call:
    actor: Actor | None
    path: dict[str, int] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # JSON body (or the login form's fields)
    masked: frozenset[str] = frozenset()  # keys whose values legitimately differ between the twins


Scenario = Callable[[World], Awaitable[Call]]


async def make_world(api: Api) -> World:
    tenant_id, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester", display_name="Twin Tester")
    project = await api.create_project(manager, "Twin", tags=["t"])
    await api.add_member(manager, project["project_id"], tester.id, "edit")
    schema = await _schema(api, manager, project["project_id"])
    constraints = await _constraint_set(api, manager, schema)
    return World(api, tenant_id, admin, manager, tester, project["project_id"], schema, constraints)


async def _schema(api: Api, by: Actor, project_id: int | None = None) -> int:
    body: dict[str, Any] = {"name": "person", "content": PERSON_SCHEMA}
    if project_id is not None:
        body["project_id"] = project_id
    return int((await api.call("POST", "/schemas", by, 201, json=body))["schema_id"])


async def _constraint_set(api: Api, by: Actor, schema_id: int) -> int:
    body = {"name": "adults", "schema_id": schema_id, "rules": [{"path": "age", "min": 18, "max": 99}]}
    return int((await api.call("POST", "/constraints", by, 201, json=body))["constraint_id"])


async def _project(w: World) -> int:
    return int((await w.api.create_project(w.manager, "Scratch", tags=["s"]))["project_id"])


async def _dataset(w: World) -> int:
    body = {"name": "people", "project_id": w.project_id, "schema_id": w.schema_id,
            "constraint_set_id": w.constraint_id, "record_count": 3, "params": {"deferred": True, "seed": 5}}
    return int((await w.api.call("POST", "/datasets/create", w.tester, 201, json=body))["dataset_id"])


async def _user(w: World) -> Actor:
    return await w.api.create_user(w.admin, "Tester")


def _png() -> str:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode("ascii")


# an address literal: no DNS lookup (the SSRF vetting resolves names); nothing is sent to it here
WEBHOOK = {"name": "hook", "provider": "webhook", "config": {"url": "https://93.184.215.14/receive"},
           "events": ["dataset.completed"]}


async def _integration(w: World) -> int:
    return int((await w.api.call("POST", "/integrations", w.admin, 201, json=WEBHOOK))["integration_id"])


async def login(w: World) -> Call:
    return Call(None, body={"username": w.tester.username, "password": w.tester.password})


async def logout(w: World) -> Call:
    return Call(await w.api.login(w.tester.username, w.tester.password))


async def create_user(w: World) -> Call:
    name = unique("twin")
    return Call(w.admin, body={"username": name, "email": f"{name}@example.com", "role": "Tester",
                               "display_name": "Twin"})


async def invite_user(w: World) -> Call:
    name = unique("invited")
    return Call(w.manager, body={"username": name, "email": f"{name}@example.com", "display_name": "Invited"})


async def setup_password(w: World) -> Call:
    name = unique("invited")
    invited = await w.api.call("POST", "/users/invite", w.admin, 201,
                               json={"username": name, "email": f"{name}@example.com"})
    return Call(None, body={"token": invited["invitation_token"], "password": "a-new-password-1"})


async def update_user(w: World) -> Call:
    return Call(w.admin, {"user_id": (await _user(w)).id}, {"display_name": "Renamed", "role": "Manager"})


async def create_project(w: World) -> Call:
    return Call(w.manager, body={"name": "Created", "description": "twin", "tags": ["a", "b"]})


async def update_project(w: World) -> Call:
    return Call(w.manager, {"project_id": await _project(w)}, {"description": "changed", "tags": ["x"]})


async def delete_project(w: World) -> Call:
    return Call(w.admin, {"project_id": await _project(w)})


async def add_member(w: World) -> Call:
    return Call(w.manager, {"project_id": await _project(w)}, {"user_id": w.tester.id, "role": "edit"})


async def remove_member(w: World) -> Call:
    project_id = await _project(w)
    await w.api.add_member(w.manager, project_id, w.tester.id, "view")
    return Call(w.manager, {"project_id": project_id}, {"user_id": w.tester.id})


async def add_schema(w: World) -> Call:
    return Call(w.manager, {"project_id": await _project(w)}, {"schema_id": w.schema_id})


async def upload_schema(w: World) -> Call:
    return Call(w.tester, body={"name": "uploaded", "content": PERSON_SCHEMA, "project_id": w.project_id})


async def preview(w: World) -> Call:
    return Call(w.tester, {"schema_id": w.schema_id}, {"count": 3, "format": "json", "params": {"seed": 11}},
                masked=frozenset({"elapsed_ms"}))


async def coverage_plan(w: World) -> Call:
    return Call(w.tester, {"schema_id": w.schema_id}, {"mode": "each", "params": {"seed": 11}})


async def delete_schema(w: World) -> Call:
    return Call(w.manager, {"schema_id": await _schema(w.api, w.manager)})


async def create_constraint_set(w: World) -> Call:
    return Call(w.tester, body={"name": "young", "schema_id": w.schema_id, "description": "d",
                                "rules": [{"path": "age", "min": 1, "max": 17}]})


async def update_constraint_set(w: World) -> Call:
    return Call(w.manager, {"constraint_id": await _constraint_set(w.api, w.manager, w.schema_id)},
                {"description": "updated", "rules": [{"path": "age", "min": 30, "max": 40}]})


async def delete_constraint_set(w: World) -> Call:
    return Call(w.manager, {"constraint_id": await _constraint_set(w.api, w.manager, w.schema_id)})


async def create_dataset(w: World) -> Call:
    return Call(w.tester, body={"name": "twin", "project_id": w.project_id, "schema_id": w.schema_id,
                                "record_count": 5, "params": {"deferred": True, "seed": 7}})


async def delete_dataset(w: World) -> Call:
    return Call(w.tester, {"dataset_id": await _dataset(w)})


async def start_dataset_of_another_tenant(w: World) -> Call:
    # starting runs generation at once (progress races the comparison): the shaped refusal is compared
    return Call(w.admin, {"dataset_id": MISSING})


async def export_objectstore(w: World) -> Call:
    # exporting needs a completed dataset and a store: the conflict of a queued dataset is compared
    return Call(w.tester, {"dataset_id": await _dataset(w)}, {"integration_id": MISSING, "formats": ["json"]})


async def mark_read(w: World) -> Call:
    return Call(w.tester, {"notification_id": MISSING})


async def create_api_token(w: World) -> Call:
    return Call(w.tester, body={"name": "twin"})


async def revoke_api_token(w: World) -> Call:
    token = await w.api.call("POST", "/settings/tokens", w.tester, 201, json={"name": "to revoke"})
    return Call(w.tester, {"token_id": token["token_id"]})


async def update_settings(w: World) -> Call:
    return Call(await _user(w), body={"display_name": "Twin", "theme": "dark", "locale": "de_DE"})


async def upload_avatar(w: World) -> Call:
    return Call(await _user(w), body={"content_base64": _png(), "filename": "me.png"})


async def change_password(w: World) -> Call:
    return Call(await _user(w), body={"current_password": USER_PASSWORD, "new_password": "another-password-2"})


async def change_email(w: World) -> Call:
    return Call(await _user(w), body={"email": f"{unique('moved')}@example.com", "password": USER_PASSWORD})


async def update_notifications(w: World) -> Call:
    return Call(await _user(w), body={"preferences": {"dataset.completed": {"in_app": False, "webhook": True}}})


async def enable_2fa(w: World) -> Call:
    return Call(await _user(w), body={})


async def disable_2fa_when_off(w: World) -> Call:
    return Call(await _user(w), body={"password": USER_PASSWORD, "code": "123456"})


async def delete_account(w: World) -> Call:
    return Call(await _user(w), body={"password": USER_PASSWORD})


async def create_tenant(w: World) -> Call:
    name = unique("twin")
    assert w.api.root is not None
    return Call(w.api.root, body={"name": name, "admin_username": name, "admin_email": f"{name}@example.com",
                                  "admin_password": "tenant-password-1"}, masked=frozenset({"name"}))


async def update_tenant(w: World) -> Call:
    assert w.api.root is not None
    return Call(w.api.root, {"tenant_id": w.tenant_id}, {"retention_days": 30, "max_concurrent_generations": 3},
                masked=frozenset({"name"}))


async def create_integration(w: World) -> Call:
    return Call(w.admin, body=WEBHOOK)


async def update_integration(w: World) -> Call:
    return Call(w.admin, {"integration_id": await _integration(w)}, {"name": "renamed", "is_active": False})


async def delete_integration(w: World) -> Call:
    return Call(w.admin, {"integration_id": await _integration(w)})


async def ping_integration_as_tester(w: World) -> Call:
    # a real test pings the receiver (timings differ): the role refusal is compared
    return Call(w.tester, {"integration_id": await _integration(w)})


async def redeliver(w: World) -> Call:
    # a delivery needs a live receiver: the not-found of a missing one is compared
    return Call(w.admin, {"integration_id": MISSING, "delivery_id": MISSING})


SCENARIOS: dict[tuple[str, str], Scenario] = {
    ("POST", "/users/token"): login,
    ("GET", "/users/logout"): logout,
    ("POST", "/users/create"): create_user,
    ("POST", "/users/invite"): invite_user,
    ("POST", "/users/setup-password"): setup_password,
    ("PATCH", "/users/{user_id}"): update_user,
    ("POST", "/projects/create"): create_project,
    ("PUT", "/projects/{project_id}"): update_project,
    ("DELETE", "/projects/{project_id}"): delete_project,
    ("POST", "/projects/{project_id}/add-user"): add_member,
    ("POST", "/projects/{project_id}/remove-user"): remove_member,
    ("POST", "/projects/{project_id}/add-schema"): add_schema,
    ("POST", "/schemas"): upload_schema,
    ("DELETE", "/schemas/{schema_id}"): delete_schema,
    ("POST", "/schemas/{schema_id}/preview"): preview,
    ("POST", "/schemas/{schema_id}/coverage-plan"): coverage_plan,
    ("POST", "/constraints"): create_constraint_set,
    ("PUT", "/constraints/{constraint_id}"): update_constraint_set,
    ("DELETE", "/constraints/{constraint_id}"): delete_constraint_set,
    ("POST", "/datasets/create"): create_dataset,
    ("GET", "/datasets/generate/{dataset_id}"): start_dataset_of_another_tenant,
    ("DELETE", "/datasets/{dataset_id}"): delete_dataset,
    ("POST", "/datasets/{dataset_id}/export-objectstore"): export_objectstore,
    ("DELETE", "/notifications/{notification_id}"): mark_read,
    ("POST", "/settings/tokens"): create_api_token,
    ("DELETE", "/settings/tokens/{token_id}"): revoke_api_token,
    ("PUT", "/settings"): update_settings,
    ("POST", "/settings/avatar"): upload_avatar,
    ("POST", "/settings/change_password"): change_password,
    ("POST", "/settings/change_email"): change_email,
    ("POST", "/settings/notifications"): update_notifications,
    ("POST", "/settings/enable_2fa"): enable_2fa,
    ("POST", "/settings/disable_2fa"): disable_2fa_when_off,
    ("POST", "/settings/delete"): delete_account,
    ("POST", "/tenants"): create_tenant,
    ("PUT", "/tenants/{tenant_id}"): update_tenant,
    ("POST", "/integrations"): create_integration,
    ("PUT", "/integrations/{integration_id}"): update_integration,
    ("DELETE", "/integrations/{integration_id}"): delete_integration,
    ("POST", "/integrations/{integration_id}/test"): ping_integration_as_tester,
    ("POST", "/integrations/{integration_id}/deliveries/{delivery_id}/redeliver"): redeliver,
}
