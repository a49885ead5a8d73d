"""A faster completion of plain leaf fields: graphql-core's execution with one shortcut.

Most fields of the API's types are plain attributes of a Strawberry object holding a scalar, an
enum or a list of them (a project's `name`, a dataset's `status`, its `types`). graphql-core
completes each such field with the general machinery: a resolve-info object, the resolver,
awaitability checks, then completion through the non-null, list and leaf steps. For a page of
50 projects that is 400 fields, and was most of the request's time.

`FastLeafExecutionContext.execute_field` reads such a field directly: the attribute, then the
leaf type's `coerce_output_value`, exactly what the general path computes for it. It takes the
shortcut only for a field Strawberry resolves by plain attribute access (a "basic" field: no
resolver, no field extensions, the default `getattr` resolver), without arguments or directives,
with no resolve middleware, and whose value completes without any error. Anything else (a
null in a non-null field, a value the scalar refuses, an awaitable) goes the general way, which
reads the attribute again and reports the error exactly as before."""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import (
    Executor,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLResolveInfoHelpers,
    GraphQLScalarType,
    GraphQLString,
    Undefined,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.pyutils import AwaitableOrValue, Path
from graphql.pyutils.undefined import UndefinedType
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types.field import StrawberryField

_SLOW = object()  # the general path must complete this field
_MIN_INT, _MAX_INT = -(2**31), 2**31 - 1  # GraphQL's Int

# The built-in scalars that return a value of exactly this Python type unchanged (serialize_string,
# serialize_int within 32 bits, serialize_boolean): such a value needs no call to complete it.
_UNCHANGED: dict[GraphQLScalarType, type] = {GraphQLString: str, GraphQLInt: int, GraphQLBoolean: bool}


def _exact(leaf: GraphQLScalarType | GraphQLEnumType) -> type | None:
    return _UNCHANGED.get(leaf) if isinstance(leaf, GraphQLScalarType) else None


def _unchanged(exact: type | None, value: Any) -> bool:
    if exact is int:
        return type(value) is int and _MIN_INT <= value <= _MAX_INT
    return exact is not None and type(value) is exact


@dataclass(frozen=True, slots=True)
class _Leaf:
    """How to complete one plain leaf field: the attribute, its leaf type, and its wrappers."""

    attribute: str
    leaf: GraphQLScalarType | GraphQLEnumType
    non_null: bool
    is_list: bool = False
    items_non_null: bool = False
    exact: type | None = None  # the Python type the leaf passes through unchanged, if any

    def complete(self, value: Any) -> Any:
        if value is None or value is Undefined:
            return _SLOW if self.non_null else None
        if not self.is_list:
            if _unchanged(self.exact, value):
                return value
            coerced = self.leaf.coerce_output_value(value)
            return _SLOW if coerced is None or coerced is Undefined else coerced
        if type(value) is not list and type(value) is not tuple:
            return _SLOW
        out: list[Any] = []
        for item in value:
            if item is None or item is Undefined:
                if self.items_non_null:
                    return _SLOW
                out.append(None)
                continue
            if _unchanged(self.exact, item):
                out.append(item)
                continue
            coerced = self.leaf.coerce_output_value(item)
            if coerced is None or coerced is Undefined:
                return _SLOW
            out.append(coerced)
        return out


def _leaf_of(field_type: GraphQLOutputType, attribute: str) -> _Leaf | None:
    non_null = isinstance(field_type, GraphQLNonNull)
    inner = field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type
    if isinstance(inner, GraphQLScalarType | GraphQLEnumType):
        return _Leaf(attribute, inner, non_null, exact=_exact(inner))
    if not isinstance(inner, GraphQLList):
        return None
    item = inner.of_type
    items_non_null = isinstance(item, GraphQLNonNull)
    item = item.of_type if isinstance(item, GraphQLNonNull) else item
    if isinstance(item, GraphQLScalarType | GraphQLEnumType):
        return _Leaf(
            attribute, item, non_null, is_list=True, items_non_null=items_non_null, exact=_exact(item)
        )
    return None


# (parent type, field name) -> how to complete it, or None for the general path; types live as
# long as their schema (built once per set of limits), so this stays small
_PLANS: dict[tuple[GraphQLObjectType, str], _Leaf | None] = {}


def _plan(parent_type: GraphQLObjectType, name: str) -> _Leaf | None:
    key = (parent_type, name)
    try:
        return _PLANS[key]
    except KeyError:
        pass
    plan = None
    field = parent_type.fields.get(name)
    definition = field.extensions.get("strawberry-definition") if field is not None else None
    if (
        field is not None
        and not field.args
        and isinstance(definition, StrawberryField)
        and definition.is_basic_field
        and definition.default_resolver is getattr
        and getattr(field.resolve, "_is_default", False)
    ):
        plan = _leaf_of(field.type, definition.python_name)
    _PLANS[key] = plan
    return plan


def _weak_helpers(context: Executor[Any]) -> GraphQLResolveInfoHelpers:
    """The resolvers' helpers (gather, track) calling the context through a weak reference.
    graphql-core binds them to the context itself, which holds them: a reference cycle that made
    each request's context, with the session, principal and collected fields hanging off it,
    garbage for the cycle collector (about 130 objects a request; a young-generation collection
    every ~150 requests at 50 clients, each a 10 ms pause of every request in flight). The
    running operation holds the context strongly, so the weak reference is alive whenever a
    resolver can call through it."""
    ref = weakref.ref(context)

    def gather(values: Sequence[Awaitable[Any]]) -> Awaitable[list[Any]]:
        return _alive(ref).gather_async_work(values)

    def track(values: Sequence[Any]) -> None:
        _alive(ref).track_async_work(values)

    return GraphQLResolveInfoHelpers(gather=gather, track=track)


def _alive(ref: weakref.ReferenceType[Executor[Any]]) -> Executor[Any]:
    context = ref()
    if context is None:
        raise RuntimeError("The operation's execution context is gone.")
    return context


class FastLeafExecutionContext(StrawberryGraphQLCoreExecutionContext):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.async_helpers = _weak_helpers(self)
        manager = self.middleware_manager
        self._shortcut = manager is None or not getattr(manager, "middlewares", ())
        # id of a grouped field set -> (the set, kept alive so its id stays its own; the plan of an
        # object whose selected fields are all plain leaves, else None). graphql-core collects
        # the set once per selection, so the items of a list share it.
        self._objects: dict[int, tuple[GroupedFieldSet, list[tuple[str, _Leaf]] | None]] = {}

    def _leaf(self, parent_type: GraphQLObjectType, field_details_list: FieldDetailsList) -> _Leaf | None:
        if not self._shortcut or len(field_details_list) != 1:
            return None
        node = field_details_list[0].node
        if node.arguments or node.directives:
            return None
        return _plan(parent_type, node.name.value)

    def _object_plan(
        self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet
    ) -> list[tuple[str, _Leaf]] | None:
        known = self._objects.get(id(grouped_field_set))
        if known is not None and known[0] is grouped_field_set:
            return known[1]
        plan: list[tuple[str, _Leaf]] | None = []
        for response_name, field_details_list in grouped_field_set.items():
            leaf = self._leaf(parent_type, field_details_list)
            if leaf is None or plan is None:
                plan = None
                break
            plan.append((response_name, leaf))
        self._objects[id(grouped_field_set)] = (grouped_field_set, plan)
        return plan

    def _complete(self, leaf: _Leaf, source: Any) -> Any:
        try:
            value = getattr(source, leaf.attribute)
            if self.is_awaitable(value) or isinstance(value, Exception):
                return _SLOW
            return leaf.complete(value)
        except Exception:
            return _SLOW

    def _leaf_objects(
        self,
        return_type: GraphQLList[Any],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
        items: Any,
        position_context: Any,
    ) -> list[dict[str, Any]] | None:
        """A list of objects whose selected fields are all plain leaves, completed in one loop
        (a page of rows); None when anything needs the general way (a null item, a type check
        that is not a plain yes, @stream or @defer, a field that does not complete plainly)."""
        if not self._shortcut or position_context is not None or type(items) not in (list, tuple):
            return None
        item_type = return_type.of_type
        object_type = item_type.of_type if isinstance(item_type, GraphQLNonNull) else item_type
        if not isinstance(object_type, GraphQLObjectType) or any(
            details.node.directives for details in field_details_list
        ):
            return None
        grouped_field_set, new_defer_usages, forbidden = self.collect_subfields(
            object_type, field_details_list
        )
        plan = None if new_defer_usages or forbidden else self._object_plan(object_type, grouped_field_set)
        if plan is None:
            return None
        is_type_of = object_type.is_type_of
        completed: list[dict[str, Any]] = []
        for item in items:
            if item is None or (is_type_of is not None and is_type_of(item, info) is not True):
                return None
            results: dict[str, Any] = {}
            for response_name, leaf in plan:
                value = self._complete(leaf, item)
                if value is _SLOW:
                    return None
                results[response_name] = value
            completed.append(results)
        return completed

    def complete_list_value(
        self,
        return_type: GraphQLList[Any],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
        path: Path,
        result: Any,
        position_context: Any,
    ) -> AwaitableOrValue[list[Any]]:
        completed = self._leaf_objects(return_type, field_details_list, info, result, position_context)
        if completed is not None:
            return completed
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: GroupedFieldSet,
        position_context: Any,
    ) -> AwaitableOrValue[dict[str, Any]]:
        plan = self._object_plan(parent_type, grouped_field_set)
        if plan is not None:
            results: dict[str, Any] = {}
            for response_name, leaf in plan:
                completed = self._complete(leaf, source_value)
                if completed is _SLOW:
                    break
                results[response_name] = completed
            else:
                return results
        return super().execute_fields(parent_type, source_value, path, grouped_field_set, position_context)

    def execute_field(
        self,
        parent_type: GraphQLObjectType,
        source: Any,
        field_details_list: FieldDetailsList,
        path: Path,
        position_context: Any,
    ) -> AwaitableOrValue[Any] | UndefinedType:
        leaf = self._leaf(parent_type, field_details_list)
        if leaf is not None:
            completed = self._complete(leaf, source)
            if completed is not _SLOW:
                return completed
        return super().execute_field(parent_type, source, field_details_list, path, position_context)
