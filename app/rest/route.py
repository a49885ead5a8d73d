"""What one row of the REST route table says."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

ParamType = Literal["int", "str", "bool", "role", "date"]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: ParamType = "str"
    description: str = ""
    default: object = None


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str  # as documented, e.g. "/projects/{project_id}"; path parameters are integers
    summary: str
    tag: str
    operation: str | None = None  # stored GraphQL operation (None only for the download door)
    result: str | None = None  # root field of `data` whose value is the response body
    body: type[BaseModel] | None = None  # JSON body, validated and passed as variable `input`
    body_variables: bool = False  # the body's keys become the operation's variables (instead of `input`)
    form: type[BaseModel] | None = None  # form-encoded body; its fields become variables
    download: bool = False  # the streaming download door (app/rest/downloads.py)
    multipart: bool = False  # also accepts multipart/form-data with a file part `file` (upload door)
    query: tuple[Param, ...] = ()
    status: int = 200
    paged: bool = False  # result is {items, total}: body = items, header X-Total-Count = total
    auth: bool = True
    roles: str = "any authenticated user"  # for the docs; enforcement lives in app/core/authz.py
    errors: tuple[int, ...] = ()
    extra_variables: dict[str, object] = field(default_factory=dict)

    @property
    def path_params(self) -> list[str]:
        return [seg[1:-1] for seg in self.path.split("/") if seg.startswith("{")]

    @property
    def operation_id(self) -> str:
        words = [self.method.lower()] + [
            s.strip("{}").replace("-", "_") for s in self.path.strip("/").split("/") if s
        ]
        return "_".join(words)
