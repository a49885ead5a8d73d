"""The /graphql door's transport errors as GraphQL responses. Strawberry answers a request it
cannot read (a body that is not JSON or not UTF-8, another content type, no query) with a plain
text sentence and no code; here it is `{"errors": [{"message", "extensions": {"code", ...}}]}`
with the same status, as every other error of the door (app/rest/errors.py)."""

from __future__ import annotations

from typing import Any

import orjson
from cross_web import HTTPException
from starlette.responses import Response
from strawberry.fastapi import GraphQLRouter
from strawberry.types.unset import UNSET

from app.graphql.errors import transport_error

_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 415: "unsupported_media_type"}
_UNPARSED = {"code": "graphql_validation", "status": 400, "classification": "ValidationError"}
# strawberry's terser reasons, said as sentences that tell the client what to send
_REASONS = {
    "Unsupported content type": "Unsupported content type: send the operation as application/json "
    "(or a query as GET /graphql?query=...).",
    "No GraphQL query found in the request": 'No GraphQL query found in the request: send {"query": "..."}.',
}


class JsonErrorsGraphQLRouter(GraphQLRouter[Any, Any]):
    def decode_json(self, data: str | bytes) -> object:
        # json.loads guesses UTF-16 and UTF-32 from the bytes and lets a decoding error through
        # (a 500); a JSON body is UTF-8 (RFC 8259 §8.1)
        if isinstance(data, bytes):
            try:
                data = data.decode()
            except UnicodeDecodeError as exc:
                raise HTTPException(
                    400,
                    f"The request body is not valid UTF-8 (byte {exc.start}): send JSON encoded in UTF-8.",
                ) from None
        return super().decode_json(data)

    async def parse_http_body(self, request: Any) -> Any:
        try:
            return await super().parse_http_body(request)
        except AttributeError:
            # JSON that is neither an object nor a list (`1`, `"q"`): strawberry calls .get on it
            raise HTTPException(
                400, 'The request body must be a JSON object: {"query": "...", "variables": {...}}.'
            ) from None

    async def process_result(self, request: Any, result: Any) -> Any:
        response = await super().process_result(request, result)
        # a document that does not parse reaches the client as graphql-core made it, without the
        # code app/graphql/errors.py gives every other error (the request's fault, as a validation)
        for error in response.get("errors") or ():
            if isinstance(error, dict) and "code" not in (error.get("extensions") or {}):
                error["extensions"] = {**(error.get("extensions") or {}), **_UNPARSED}
        return response

    async def run(self, request: Any, context: Any = UNSET, root_value: Any = UNSET) -> Any:
        try:
            return await super().run(request, context, root_value)
        except HTTPException as exc:
            body = transport_error(
                _REASONS.get(exc.reason, exc.reason),
                _CODES.get(exc.status_code, "bad_request"),
                exc.status_code,
            )
            headers = {"Allow": "GET, POST"} if exc.status_code == 405 else None
            return Response(orjson.dumps(body), exc.status_code, headers, media_type="application/json")
