"""What one row of the REST route table says. A row is checked when the table loads: its path,
query, body and form supply exactly variables the stored operation declares, and every variable the
operation requires (a typo in a path parameter stops the start, not a request)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from app.core.authz import Action
from app.rest.operations import Operation

ParamType = Literal["int", "str", "bool", "date"]
MAX_INT = 2**31 - 1  # GraphQL's Int is 32-bit: every integer parameter and id fits it
# a "date" parameter: an RFC 3339 full-date or date-time (seconds and an offset; up to microseconds)
DATE_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?([Zz]|[+-][0-9]{2}:[0-9]{2}))?$"
)


@dataclass(frozen=True, slots=True)
class Param:
    """A query parameter: its type, and the bounds or choices the door enforces and the document
    states (an integer is always bounded: by default GraphQL's 32-bit range)."""

    name: str
    type: ParamType = "str"
    description: str = ""
    default: object = None
    minimum: int = -MAX_INT - 1
    maximum: int = MAX_INT
    choices: tuple[str, ...] = ()


def id_param(name: str, description: str = "") -> Param:
    """A query parameter naming a row: an integer from 1 to 2**31-1, like a path id."""
    return Param(name, "int", description, minimum=1)


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str  # as documented, e.g. "/projects/{project_id}"; path parameters are integers
    summary: str
    tag: str
    operation: Operation | None = None  # stored GraphQL operation (None only for the download door)
    body: type[BaseModel] | None = None  # JSON body, validated and passed as variable `input`
    body_variables: bool = False  # the body's keys become the operation's variables (instead of `input`)
    form: type[BaseModel] | None = None  # form-encoded body; its fields become variables
    download: bool = False  # the streaming download door (app/rest/downloads.py)
    multipart: bool = False  # also accepts multipart/form-data with a file part `file` (upload door)
    query: tuple[Param, ...] = ()
    status: int = 200
    paged: bool = False  # result is {items, total}: body = items, header X-Total-Count = total
    auth: bool = True
    # the authz action the service checks (app/core/authz.py); the docs' "who may call" comes from it
    action: Action | None = None
    errors: tuple[int, ...] = ()
    extra_variables: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.operation is not None:
            check_variables(self, self.operation)

    @property
    def result(self) -> str | None:
        """The field of the answer's `data` whose value is the response body."""
        return self.operation.field if self.operation else None

    @property
    def path_params(self) -> list[str]:
        return [seg[1:-1] for seg in self.path.split("/") if seg.startswith("{")]

    @property
    def literal(self) -> bool:
        """A path without parameters (it takes precedence over a template at the same place)."""
        return not self.path_params

    @property
    def operation_id(self) -> str:
        words = [self.method.lower()] + [
            s.strip("{}").replace("-", "_") for s in self.path.strip("/").split("/") if s
        ]
        return "_".join(words)


def supplied_variables(route: Route) -> dict[str, str]:
    """Variable -> where the row takes it from."""
    supplied = {name: "path parameter" for name in route.path_params}
    supplied |= {p.name: "query parameter" for p in route.query}
    supplied |= {name: "extra variable" for name in route.extra_variables}
    if route.body is not None:
        if route.body_variables:
            supplied |= {name: "body field" for name in route.body.model_fields}
        else:
            supplied["input"] = "body"
    if route.form is not None:
        supplied |= {name: "form field" for name in route.form.model_fields}
    return supplied


def check_variables(route: Route, operation: Operation) -> None:
    where = f"{route.method} {route.path} (operation {operation.name})"
    supplied = supplied_variables(route)
    unknown = sorted(f"{kind} '{name}'" for name, kind in supplied.items() if name not in operation.variables)
    if unknown:
        raise ValueError(
            f"{where}: {', '.join(unknown)} not among the operation's variables "
            f"({', '.join(sorted(operation.variables)) or 'none'})."
        )
    missing = sorted(operation.required - supplied.keys())
    if missing:
        raise ValueError(f"{where}: required variables {', '.join(missing)} are not supplied by the row.")


def allowed_methods(routes: tuple[Route, ...], path: str) -> list[str]:
    """Every method the table serves at documented path `path` (a 405's Allow header)."""
    return sorted({route.method for route in routes if route.path == path})
