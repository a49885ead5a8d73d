"""Schemathesis against a live `tdg serve` (SQLite): every REST operation of the served OpenAPI
document with every check (the CLI's `--checks all`), and every GraphQL query and mutation of the
introspected schema, with a fixed seed, real tokens and real ids. Zero failures.

A module fixture starts the server and builds a world over HTTP: a tenant with an Admin, a
Manager and a Tester, a project, a schema, a constraint set, datasets (one generated, so
downloads and notifications exist), an integration with a delivery to a loopback receiver and an
API token. Their ids reach the generated requests through schemathesis dictionaries bound to the
parameters, body fields and GraphQL arguments of the same name. An operation that destroys or
disables what it names (DELETE, PUT /tenants, PATCH /users, the GraphQL equivalents) gets a new
one made for each case instead, and one on the caller's own account (logout, password, email,
2FA, account deletion) runs as a new user with that user's password: every case acts on what
exists, and no case takes away what the others work with.

Bounded: TDG_SCHEMATHESIS_EXAMPLES (REST) and TDG_SCHEMATHESIS_GRAPHQL_EXAMPLES fuzzed cases per
operation (25 each by default), on top of the REST examples and coverage phases; about two
minutes for both on two cores.
"""

from __future__ import annotations

import asyncio
import base64
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphql as gql
import httpx
import pytest
import schemathesis
from hypothesis import strategies as st
from PIL import Image
from schemathesis import Case
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.api.mutation_scenarios import PERSON_SCHEMA, make_world
from tests.api_client import BASE, TENANT_ADMIN_PASSWORD, USER_PASSWORD, Api, unique
from tests.integrations.receiver import Receiver
from tests.support.ports import free_port

TDG = Path(sys.executable).parent / "tdg"
ADMIN_PASSWORD = "schemathesis-root-1"
SEED = 20_161_116
MAX_EXAMPLES_REST = int(os.environ.get("TDG_SCHEMATHESIS_EXAMPLES", "15"))
MAX_EXAMPLES_GRAPHQL = int(os.environ.get("TDG_SCHEMATHESIS_GRAPHQL_EXAMPLES", "15"))

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


# -- the server --------------------------------------------------------------------------------


def _free_port() -> int:
    """A loopback port no other test process is handed (tests/support/ports.py)."""
    return free_port()


@dataclass
class Server:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    assert TDG.exists(), f"{TDG} is missing: install the project (pip install -e .)"
    tmp = tmp_path_factory.mktemp("schemathesis")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDG_")}
    env.update(
        TDG_ENV="test",
        TDG_DATABASE_URL=f"sqlite:///{tmp / 'tdg.db'}",
        TDG_DATA_DIR=str(tmp / "data"),
        TDG_ADMIN_USERNAME="root",
        TDG_ADMIN_PASSWORD=ADMIN_PASSWORD,
        TDG_SECRET_KEY="schemathesis-secret-" + "x" * 32,
        TDG_WORKERS="1",
        TDG_WARM_POOL="false",
        TDG_PASSWORD_HASH_TIME_COST="1",
        TDG_PASSWORD_HASH_MEMORY_KIB="8",
        # the fuzzer's failed logins must not lock out the fixture's (throttling is tested elsewhere)
        TDG_LOGIN_MAX_FAILURES="1000000",
        TDG_WEBHOOK_ALLOW_PRIVATE="true",
        TDG_WEBHOOK_TIMEOUT_SECONDS="2",
        TDG_PUBLIC_URL=f"http://127.0.0.1:{port}",
    )
    log = tmp / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(TDG), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
            env=env,
            cwd=tmp,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    running = Server(f"http://127.0.0.1:{port}", proc, log)
    try:
        deadline = time.monotonic() + 300  # start-up on a loaded machine
        while True:
            assert proc.poll() is None, f"tdg serve exited with {proc.returncode}:\n{running.log_tail()}"
            try:
                if httpx.get(running.base + "/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"tdg serve did not answer:\n{running.log_tail()}"
            time.sleep(0.1)
        yield running
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


# -- the world the fuzzer works in -------------------------------------------------------------


class Provisioner:
    """Creates what a generated request acts on, over the live server's REST API."""

    def __init__(
        self, base: str, root: str, admin: str, project_id: int, schema_id: int, webhook: str
    ) -> None:
        self.client = httpx.Client(base_url=base + BASE, timeout=30.0)
        self.root, self.admin = root, admin
        self.project_id, self.schema_id, self.webhook = project_id, schema_id, webhook

    def _send(self, path: str, **kwargs: Any) -> httpx.Response:
        """POST as a client does: a 503 (the database busy or away for a moment) is tried again
        after its Retry-After, a few times, so a loaded machine delays the world, not fails it."""
        for _ in range(3):
            r = self.client.post(path, **kwargs)
            if r.status_code != 503:
                return r
            time.sleep(float(r.headers.get("Retry-After", "1")))
        return self.client.post(path, **kwargs)

    def _post(self, path: str, token: str, body: dict[str, Any], key: str) -> int:
        r = self._send(path, json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, f"POST {path}: {r.status_code} {r.text}"
        return int(r.json()[key])

    def login(self, username: str, password: str) -> str:
        r = self._send("/users/token", data={"username": username, "password": password})
        assert r.status_code == 200, r.text
        return str(r.json()["access_token"])

    def project_id_(self) -> int:
        return self._post("/projects/create", self.admin, {"name": unique("p")}, "project_id")

    def schema_id_(self) -> int:
        return self._post(
            "/schemas", self.admin, {"name": unique("s"), "content": PERSON_SCHEMA}, "schema_id"
        )

    def constraint_id_(self) -> int:
        body = {
            "name": unique("c"),
            "schema_id": self.schema_id,
            "rules": [{"path": "age", "min": 1, "max": 9}],
        }
        return self._post("/constraints", self.admin, body, "constraint_id")

    def dataset_id_(self, deferred: bool = True) -> int:
        body = {
            "name": unique("d"),
            "project_id": self.project_id,
            "schema_id": self.schema_id,
            "record_count": 5,
            "params": {"deferred": deferred, "seed": 1},
        }
        return self._post("/datasets/create", self.admin, body, "dataset_id")

    def integration_id_(self) -> int:
        body = {
            "name": unique("hook"),
            "provider": "webhook",
            "config": {"url": self.webhook},
            "events": ["dataset.completed", "project.created"],
        }
        return self._post("/integrations", self.admin, body, "integration_id")

    def s3_integration_(self) -> int:
        body = {
            "name": unique("s3"),
            "provider": "s3",
            "config": {
                "bucket": "tdg-fuzz",
                "endpoint_url": f"http://127.0.0.1:{_free_port()}",
                "access_key_id": "AKIAFUZZ",
                "secret_access_key": "fuzz",
            },
        }
        return self._post("/integrations", self.admin, body, "integration_id")

    def token_id_(self) -> int:
        return self._post("/settings/tokens", self.admin, {"name": unique("t")}, "token_id")

    def user(self, role: str = "Tester") -> tuple[int, str]:
        """A new user of the tenant: (id, its bearer token)."""
        username = unique(role.lower())
        body = {
            "username": username,
            "password": USER_PASSWORD,
            "role": role,
            "email": f"{username}@example.com",
        }
        return self._post("/users/create", self.admin, body, "id"), self.login(username, USER_PASSWORD)

    def user_id_(self) -> int:
        return self.user()[0]

    def tenant_id_(self) -> int:
        admin = unique("admin")
        body = {
            "name": unique("tenant"),
            "admin_username": admin,
            "admin_email": f"{admin}@example.com",
            "admin_password": TENANT_ADMIN_PASSWORD,
        }
        return self._post("/tenants", self.root, body, "tenant_id")

    def member_id_(self) -> int:
        user_id = self.user_id_()
        r = self._send(
            f"/projects/{self.project_id}/add-user",
            json={"user_id": user_id, "role": "view"},
            headers={"Authorization": f"Bearer {self.admin}"},
        )
        assert r.status_code == 200, r.text
        return user_id

    def invitation_(self) -> str:
        username = unique("invited")
        r = self._send(
            "/users/invite",
            json={"username": username, "email": f"{username}@example.com"},
            headers={"Authorization": f"Bearer {self.admin}"},
        )
        assert r.status_code == 201, r.text
        return str(r.json()["invitation_token"])

    def fresh(self, name: str) -> Any:
        factory: Callable[[], Any] = getattr(self, name + "_")
        return factory()


@dataclass
class World:
    root: str
    admin: str
    login: tuple[str, str]  # a user whose credentials the login operations are given
    ids: dict[str, list[int]]  # real ids by parameter name, for every operation
    make: Provisioner
    s3: int  # an object-storage integration (its endpoint a closed local port: exports fail, later)


async def _build_world(base: str, receiver: Receiver) -> World:
    async with httpx.AsyncClient(base_url=base, timeout=30.0) as client:
        api = Api(client)
        root = await api.login_as_root(ADMIN_PASSWORD)
        w = await make_world(api)
        admin = w.admin
        make = Provisioner(base, root.token, admin.token, w.project_id, w.schema_id, receiver.url)
        done = make.dataset_id_(deferred=False)
        deadline = time.monotonic() + 300  # a cold pool process on a loaded machine
        while (await api.call("GET", f"/datasets/{done}", admin, 200))["status"] != "completed":
            assert time.monotonic() < deadline, "the fixture dataset did not complete"
            await asyncio.sleep(0.1)
        hook = make.integration_id_()
        await api.call("POST", f"/integrations/{hook}/test", admin, 200)
        deliveries: list[int] = []
        while not deliveries:
            assert time.monotonic() < deadline, "no delivery recorded"
            await asyncio.sleep(0.05)
            rows = await api.call("GET", f"/integrations/{hook}/deliveries", admin, 200)
            deliveries = [int(r["delivery_id"]) for r in rows]
        notifications = [
            int(n["notification_id"]) for n in await api.call("GET", "/notifications", admin, 200)
        ]
        assert notifications, "the completed dataset notified nobody"
        login_user = await api.create_user(admin, "Tester")
        constraints = [w.constraint_id]
        return World(
            root=root.token,
            admin=admin.token,
            login=(login_user.username, login_user.password),
            ids={
                "project_id": [w.project_id],
                "schema_id": [w.schema_id],
                "constraint_id": constraints,
                "constraint_set_id": constraints,
                "dataset_id": [done, make.dataset_id_()],
                "integration_id": [hook],
                "delivery_id": deliveries,
                "notification_id": notifications,
                "token_id": [make.token_id_()],
                "user_id": [w.tester.id, w.manager.id],
                "actor_id": [admin.id],
                "tenant_id": [w.tenant_id],
            },
            make=make,
            s3=make.s3_integration_(),
        )


@pytest.fixture(scope="module")
def world(server: Server) -> Iterator[World]:
    receiver = Receiver()
    try:
        built = asyncio.run(_build_world(server.base, receiver))
        yield built
        built.make.client.close()
    finally:
        receiver.close()


# -- what each operation is given --------------------------------------------------------------

# Operations that destroy or disable what they name get a new one for each case that names a
# valid id: each case then acts on something that exists, and the fixture's ids stay for the others.
FRESH_REST: dict[tuple[str, str], str] = {
    ("PUT", "/integrations/{integration_id}"): "integration_id",
    ("DELETE", "/projects/{project_id}"): "project_id",
    ("DELETE", "/schemas/{schema_id}"): "schema_id",
    ("DELETE", "/constraints/{constraint_id}"): "constraint_id",
    ("DELETE", "/datasets/{dataset_id}"): "dataset_id",
    ("DELETE", "/integrations/{integration_id}"): "integration_id",
    ("DELETE", "/settings/tokens/{token_id}"): "token_id",
    ("PATCH", "/users/{user_id}"): "user_id",
    ("PUT", "/tenants/{tenant_id}"): "tenant_id",
}
# label -> (argument or input field, what to make)
FRESH_GRAPHQL: dict[str, tuple[str, str]] = {
    "Mutation.delete_project": ("project_id", "project_id"),
    "Mutation.delete_schema": ("schema_id", "schema_id"),
    "Mutation.delete_constraint_set": ("constraint_id", "constraint_id"),
    "Mutation.delete_dataset": ("dataset_id", "dataset_id"),
    "Mutation.delete_integration": ("integration_id", "integration_id"),
    "Mutation.update_integration": ("integration_id", "integration_id"),
    "Mutation.revoke_api_token": ("token_id", "token_id"),
    "Mutation.update_user": ("user_id", "user_id"),
    "Mutation.update_tenant": ("tenant_id", "tenant_id"),
    # a member of the fixture's project to remove, an unused invitation to accept
    "Mutation.remove_project_member": ("user_id", "member_id"),
    "Mutation.setup_password": ("token", "invitation"),
}
# Operations on the caller's own account (log out, change the password or email, 2FA, delete the
# account) run as a new user each time, with that user's password where one is asked for.
SELF_REST = {
    "/users/logout",
    "/settings/change_password",
    "/settings/change_email",
    "/settings/enable_2fa",
    "/settings/disable_2fa",
    "/settings/delete",
}
SELF_GRAPHQL = {
    "Mutation.logout",
    "Mutation.change_password",
    "Mutation.change_email",
    "Mutation.enable_2fa",
    "Mutation.disable_2fa",
    "Mutation.delete_account",
}
PASSWORD_FIELDS = ("current_password", "password")
# A refusal by role is a resolver's FORBIDDEN, which schemathesis counts as a server error in
# GraphQL (in REST, a documented 403): the operations that grant roles run as the SuperUser, who
# may grant every role. (Tenant operations run as the SuperUser too.)
AS_ROOT_GRAPHQL = {"Mutation.create_user", "Mutation.invite_user", "Mutation.update_user"}
# Values the service accepts, given half of the time to the arguments whose range the GraphQL type
# system cannot state (a random Int is almost never a page size from 1 to 500): the rest of the
# operation is then exercised too, not only its refusal.
VALID_GRAPHQL: dict[str, list[Any]] = {
    "limit": [1, 50, 500],
    "offset": [0, 1],
    "count": [1, 10, 100],
    "record_count": [1, 5],
    "format": ["json", "csv", "xml", "sql", "ndjson"],
    "content": [PERSON_SCHEMA],
}
VALID_GRAPHQL_AT = ("limit", "offset", "count", "format", "input.record_count", "input.content")
# The fixture's datasets have one file: another index is a NOT_FOUND, which schemathesis counts as
# a server error in GraphQL (REST documents the 404 of GET /data/{dataset_id}).
FILE_INDEX = [0]


def _id_bindings(world: World, keys: Callable[[str], list[str]]) -> dict[str, Any]:
    return {key: {"dictionary": f"ids_{name}"} for name in world.ids for key in keys(name)}


def _config(world: World, max_examples: int, *, graphql: bool) -> schemathesis.Config:
    """Real ids for every parameter or argument of an id's name; the login operations get a real
    user's credentials, the caller's-own-account operations the password of the user they run as."""
    dictionaries: dict[str, Any] = {f"ids_{name}": {"values": ids} for name, ids in world.ids.items()}
    dictionaries |= {
        "username": {"values": [world.login[0]]},
        "password": {"values": [world.login[1]]},
        "own_password": {"values": [USER_PASSWORD]},
        "schema": {"values": [PERSON_SCHEMA]},
    }
    dictionaries |= {name: {"values": values} for name, values in VALID_GRAPHQL.items()}
    dictionaries["file_index"] = {"values": FILE_INDEX}
    if graphql:
        # `<Type>.<field>.<argument path>`: ids as arguments and as fields of input objects
        parameters = _id_bindings(world, lambda n: [f"*.*.{n}", f"*.*.input.{n}"])
        login = {
            "Mutation.login.username": {"dictionary": "username"},
            "Mutation.login.password": {"dictionary": "password"},
        }
        own = {f"*.*.input.{field}": {"dictionary": "own_password"} for field in PASSWORD_FIELDS}
        parameters |= {
            f"*.*.{key}": {"dictionary": key.rsplit(".", 1)[-1], "probability": 0.5}
            for key in VALID_GRAPHQL_AT
        }
        parameters["Mutation.create_download_link.file_index"] = {"dictionary": "file_index"}
        operations = [
            {"include-name": "Mutation.login", "parameters": login},
            {"include-name": sorted(SELF_GRAPHQL), "parameters": own},
        ]
    else:
        parameters = _id_bindings(world, lambda n: [f"path.{n}", f"query.{n}", f"body.{n}"])
        # a schema that loads, half of the time: random text never is one
        parameters["body.content"] = {"dictionary": "schema", "probability": 0.5}
        login = {"body.username": {"dictionary": "username"}, "body.password": {"dictionary": "password"}}
        own = {f"body.{field}": {"dictionary": "own_password"} for field in PASSWORD_FIELDS}
        operations = [
            {"include-path": "/users/token", "parameters": login},
            {"include-path": sorted(SELF_REST), "parameters": own},
        ]
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "generation": {"max-examples": max_examples, "database": "none"},
            "dictionaries": dictionaries,
            "parameters": parameters,
            "operations": operations,
            "request-timeout": 30,
        }
    )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


MAX_ID = 2**31 - 1


def _names_an_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and 1 <= value <= MAX_ID
    if isinstance(value, str):
        return value.strip().isdecimal() and 1 <= int(value) <= MAX_ID
    return isinstance(value, int) and 1 <= value <= MAX_ID


def _is_positive(case: Case) -> bool:
    return case.meta is not None and case.meta.generation.mode.is_positive


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (2, 2), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


PNG = _png()
FUTURE = "2099-01-01T00:00:00Z"
RULES = [{"path": "age", "min": 1, "max": 9}]


def _valid_content(case: Case, world: World) -> None:
    """Values a JSON Schema cannot describe, made valid in a positive case (a negative case keeps
    its point). The document says what it can: a rule's required `path`, base64 that is not empty,
    expires_at's and the root's rule in prose, each upload's kind. What it cannot say is checked
    against data the server holds or against the clock: a schema file that parses, an image that
    decodes, a rule path that names one of the schema's fields, a root the schema has, a time
    still in the future, a webhook URL that resolves (the fixture's receiver), generation params
    (their names and meaning are in prose; a root must be one of the schema's), a record count
    within the tenant's limit (a setting; a dataset is created deferred, so the run stays bounded),
    a token scope's projects (ones its owner sees)."""
    if not _is_positive(case):
        return
    key = (case.method.upper(), case.path)
    if key == ("GET", "/schemas/{schema_id}/repr") and case.query and "root" in case.query:
        case.query["root"] = "#"  # the fixture's schema (PERSON_SCHEMA) has one root
    if not isinstance(case.body, dict):
        return
    body = case.body
    multipart = (case.media_type or "").startswith("multipart/")
    if key == ("POST", "/schemas"):
        for name, value in (
            ("content", PERSON_SCHEMA),
            # text: for schemathesis a body holding bytes that a hook changed is a negative case
            ("file", PERSON_SCHEMA),
            ("content_base64", base64.b64encode(PERSON_SCHEMA.encode()).decode()),
        ):
            if name in body:
                body[name] = value
        if body.get("filename") is not None:
            body["filename"] = "person.schema.json"
    elif key == ("POST", "/settings/avatar") and not multipart:
        body["content_base64"] = base64.b64encode(PNG).decode()
    elif key in (("POST", "/constraints"), ("PUT", "/constraints/{constraint_id}")):
        if body.get("rules") is not None:
            body["rules"] = RULES
        if body.get("root") is not None:
            body["root"] = "#"
    elif key == ("POST", "/datasets/create"):
        body["params"] = {"deferred": True, "seed": 1}
        if isinstance(body.get("record_count"), int | float):
            body["record_count"] = min(body["record_count"], 10_000_000)
    elif key == ("POST", "/schemas/{schema_id}/preview"):
        if body.get("params") is not None:
            body["params"] = {"seed": 1}
        if body.get("rules") is not None:  # unsaved rules: paths of the schema's fields, as a set's
            body["rules"] = RULES
    elif key == ("POST", "/schemas/{schema_id}/coverage-plan") and body.get("params") is not None:
        body["params"] = {"seed": 1}
    elif key == ("POST", "/datasets/{dataset_id}/export-objectstore"):
        body["integration_id"] = world.s3  # the fixture's other integration is a webhook: 422
    elif key == ("POST", "/settings/tokens"):
        if body.get("expires_at") is not None:
            body["expires_at"] = FUTURE
        if body.get("project_ids") is not None:
            body["project_ids"] = [world.make.project_id]  # a scope names projects its owner sees
    elif key in (("POST", "/integrations"), ("PUT", "/integrations/{integration_id}")):
        _valid_integration(body, world)


def _valid_integration(body: dict[str, Any], world: World) -> None:
    if body.get("provider", "webhook") == "s3":
        if "config" in body:
            body["config"] = {"bucket": "tdg-fuzz", "access_key_id": "AKIAFUZZ", "secret_access_key": "fuzz"}
        body["events"] = None
    elif body.get("config") is not None:
        body["config"] = {"url": world.make.webhook}


def _own_body(case: Case) -> dict[str, Any]:
    """The request's body sent instead of the generated one: a positive multipart avatar case
    uploads a real image. (Changing `case.body` would not do: schemathesis revalidates a body a hook
    changed, and one holding bytes then counts as a negative case.)"""
    avatar = (case.method.upper(), case.path) == ("POST", "/settings/avatar")
    if avatar and _is_positive(case) and (case.media_type or "").startswith("multipart/"):
        return {"files": {"file": ("avatar.png", PNG, "image/png")}}
    return {}


def _prepare_rest(case: Case, world: World) -> dict[str, str]:
    """A new resource for a destructive operation; the headers to send.

    The id is replaced whenever it would name a row once in the URL (from the ids dictionary, a
    boundary value of the coverage phase, or a negative case's "1" or 1.0): no case deletes or
    disables what the other operations work with."""
    fresh = FRESH_REST.get((case.method.upper(), case.path))
    if fresh is not None and case.path_parameters and _names_an_id(case.path_parameters.get(fresh)):
        value = case.path_parameters[fresh]
        new = world.make.fresh(fresh)
        # the same type: "1" or 1.0 (a negative case's value) reaches the server as /1 all the same
        case.path_parameters[fresh] = type(value)(new)
    if case.path == "/users/setup-password" and _is_positive(case) and isinstance(case.body, dict):
        # an unused invitation (a negative case keeps its token: it may be what is wrong)
        case.body["token"] = world.make.invitation_()
    _valid_content(case, world)
    if case.path in SELF_REST:
        return _bearer(world.make.user()[1])
    return _bearer(world.root if case.path.startswith("/tenants") else world.admin)


def _prepare_graphql(case: Case, world: World) -> dict[str, str]:
    label = case.operation.label
    fresh = FRESH_GRAPHQL.get(label)
    if fresh is not None:
        field, kind = fresh
        case.body = _with_value(case.body, field, lambda: world.make.fresh(kind))
    if label in SELF_GRAPHQL:
        return _bearer(world.make.user()[1])
    return _bearer(world.root if label in AS_ROOT_GRAPHQL or "tenant" in label else world.admin)


INT_RANGE = range(-(2**31), 2**31)


def _with_value(body: Any, name: str, value: Callable[[], int | str]) -> Any:
    """The generated document with each argument or input field called `name` set to `value()`.

    Only a literal of the type the schema asks for is replaced (an Int in GraphQL's range, a
    String): another kind is a negative case's point and stays."""

    def replaced(node: gql.ValueNode) -> gql.ValueNode | None:
        if isinstance(node, gql.IntValueNode) and int(node.value) in INT_RANGE:
            new = value()
            return gql.IntValueNode(value=str(new)) if isinstance(new, int) else None
        if isinstance(node, gql.StringValueNode):
            new = value()
            return gql.StringValueNode(value=new) if isinstance(new, str) else None
        return None

    class SetValue(gql.Visitor):
        def enter_argument(self, node: gql.ArgumentNode, *_: Any) -> gql.ArgumentNode | None:
            new = replaced(node.value) if node.name.value == name else None
            return None if new is None else gql.ArgumentNode(name=node.name, value=new)

        def enter_object_field(self, node: gql.ObjectFieldNode, *_: Any) -> gql.ObjectFieldNode | None:
            new = replaced(node.value) if node.name.value == name else None
            return None if new is None else gql.ObjectFieldNode(name=node.name, value=new)

    if isinstance(body, gql.DocumentNode):
        return gql.visit(body, SetValue())
    if isinstance(body, dict):
        return {**body, "query": gql.print_ast(gql.visit(gql.parse(body["query"]), SetValue()))}
    return gql.print_ast(gql.visit(gql.parse(body), SetValue()))


def _json_literal(value: Any) -> gql.ValueNode:
    if value is None:
        return gql.NullValueNode()
    if isinstance(value, bool):
        return gql.BooleanValueNode(value=value)
    if isinstance(value, int):
        return gql.IntValueNode(value=str(value))
    if isinstance(value, float):
        return gql.FloatValueNode(value=repr(value))
    if isinstance(value, str):
        return gql.StringValueNode(value=value)
    if isinstance(value, list):
        return gql.ListValueNode(values=tuple(_json_literal(v) for v in value))
    return gql.ObjectValueNode(
        fields=tuple(
            gql.ObjectFieldNode(name=gql.NameNode(value=k), value=_json_literal(v)) for k, v in value.items()
        )
    )


# The JSON scalar: any JSON value, as a GraphQL literal (object keys are GraphQL names)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.from_regex(r"\A[_A-Za-z][_0-9A-Za-z]{0,10}\Z"), inner, max_size=4)
    ),
    max_leaves=8,
)
schemathesis.graphql.scalar("JSON", _JSON_VALUES.map(_json_literal))


# -- the runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rest_schema(server: Server, world: World) -> Any:
    return schemathesis.openapi.from_url(
        server.base + BASE + "/openapi.json", config=_config(world, MAX_EXAMPLES_REST, graphql=False)
    )


@pytest.fixture(scope="module")
def graphql_schema(server: Server, world: World) -> Any:
    return schemathesis.graphql.from_url(
        server.base + "/graphql",
        config=_config(world, MAX_EXAMPLES_GRAPHQL, graphql=True),
        headers=_bearer(world.admin),
    )


@pytest.fixture(autouse=True)
def _node_id_shim(request: pytest.FixtureRequest) -> None:
    """schemathesis 4.32's `from_fixture` reads and rewrites `Node._nodeid` (to name the operation
    in reports), which pytest 9 no longer has: give the node one."""
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


rest = schemathesis.pytest.from_fixture("rest_schema")
graphql = schemathesis.pytest.from_fixture("graphql_schema")


# REST failures that belong to the strict-document work on the facade (issue 16, items 2 to 5),
# by operation and check; /work/notes/schemathesis_findings.md has each one's reproducing request.
# A case whose only failures are listed here passes; any other failure fails it, and a listed one
# that no longer happens fails test_rest_known_failures_still_happen (take it off the list).
# TDG_SCHEMATHESIS_KNOWN=none ignores the list (every failure reported in full).
KNOWN_REST: dict[str, set[str]] = {}
OBSERVED_REST: dict[str, set[str]] = {}
IGNORE_KNOWN = os.environ.get("TDG_SCHEMATHESIS_KNOWN", "") == "none"


@rest.parametrize()
def test_rest(case: Case, world: World) -> None:
    """Every check (the CLI's `--checks all`)."""
    label = case.operation.label
    OBSERVED_REST.setdefault(label, set())
    try:
        headers = _prepare_rest(case, world)
        # a negative case may be one without (or with a broken) Authorization: it stays so
        case.call_and_validate(
            headers={} if case.operation.schema.is_security_param_negated(case) else headers,
            **_own_body(case),
        )
    except FailureGroup as group:
        checks = {check for failure in group.exceptions for check in failure.checks}
        known = set() if IGNORE_KNOWN else KNOWN_REST.get(label, set())
        if not checks <= known:
            raise
        OBSERVED_REST[label] |= checks


def test_rest_known_failures_still_happen() -> None:
    if not KNOWN_REST:
        pytest.skip("KNOWN_REST lists no failures: every check passes on every operation")
    ran = {label for label in KNOWN_REST if label in OBSERVED_REST}
    if IGNORE_KNOWN or not ran:
        pytest.skip("test_rest did not run the listed operations")
    fixed = {label: sorted(KNOWN_REST[label] - OBSERVED_REST[label]) for label in ran}
    assert not {label: checks for label, checks in fixed.items() if checks}, (
        "These listed REST failures no longer happen: take them off KNOWN_REST (and the findings notes)"
    )


@graphql.parametrize()
def test_graphql(case: Case, world: World) -> None:
    """Every check but positive_data_acceptance, which in GraphQL fails any refusal of a
    schema-valid document, and the GraphQL type system cannot state the service's rules
    (ranges, lengths, patterns, uniqueness): the REST run holds that check against a document
    that can. A refusal must be labelled a client error (extensions.classification) to pass
    not_a_server_error; an unlabelled or INTERNAL_ERROR one fails it."""
    case.call_and_validate(headers=_prepare_graphql(case, world), excluded_checks=[positive_data_acceptance])
