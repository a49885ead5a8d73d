"""Check one generated record against the uploaded schema with the validator users actually run:
jsonschema (the schema's own draft, FormatChecker, no remote retrieval) or xmlschema.
Design notes: docs/generation.md.

The validators' libraries (jsonschema, RE2, regex, xmlschema) are imported when a guard is built or
runs, not with this module: the schema loaders import it, and `tdg generate` of an XSD needs no
jsonschema, nor one of a JSON Schema xmlschema."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from app.generation.caching import short_key_cache
from app.generation.errors import Unsatisfiable

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# one match of one pattern against one value; legitimate patterns take microseconds
PATTERN_BUDGET_S = 0.25
# Python `re` tokens whose meaning differs in RE2 (Unicode vs ASCII classes, inline flags)
_RE2_UNSAFE_ESCAPES = frozenset("wWsSbBZ")


@lru_cache(maxsize=1)
def _re2_options() -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False  # a pattern RE2 refuses is normal: it goes to `regex`
    return options


class PatternBudgetExceeded(Exception):
    """A pattern took longer than PATTERN_BUDGET_S on one value."""

    def __init__(self, pattern: str, value: str) -> None:
        super().__init__(pattern, value)
        self.pattern = pattern
        self.value = value


def _re2_form(pattern: str) -> str | None:
    r"""The pattern in RE2 syntax with Python `re` semantics, or None when RE2 would read it
    differently: `\d` is Unicode in `re` (RE2: `\p{Nd}`), a final `$` also matches before a
    trailing newline (RE2: `(?:\n?\z)`); `\w \s \b`, `\Z`, inline flags and any other `$` are
    left to `regex`."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in _RE2_UNSAFE_ESCAPES:
                return None
            out.append("\\p{Nd}" if nxt == "d" else "\\P{Nd}" if nxt == "D" else ch + nxt)
            i += 2
            continue
        if ch == "$":
            if i != n - 1:
                return None
            out.append("(?:\n?\\z)")
        elif ch == "(" and pattern.startswith("(?", i) and i + 2 < n and pattern[i + 2].isalpha():
            return None  # inline flags: (?i) folds case differently, (?m)/(?s) change anchors
        elif ch == "{" and pattern.startswith("{,", i):
            return None  # `re` reads {,n} as {0,n}, RE2 as text
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@short_key_cache(maxsize=1024)
def budgeted_search(pattern: str) -> Callable[[str], bool]:
    """A function telling whether `pattern` is found in a value (Python `re.search` semantics),
    in linear time or within PATTERN_BUDGET_S; raises PatternBudgetExceeded over budget."""
    import re2
    import regex

    form = _re2_form(pattern)
    compiled_re2 = None
    if form is not None:
        with contextlib.suppress(re2.error):
            compiled_re2 = re2.compile(form, _re2_options())
    compiled = None
    try:
        compiled = regex.compile(pattern, flags=regex.VERSION0)
    except regex.error as exc:
        if compiled_re2 is None:
            raise Unsatisfiable(
                f"The pattern {pattern!r} cannot be checked within a time budget: {exc}."
            ) from None

    def search(value: str) -> bool:
        if compiled_re2 is not None:
            try:
                return compiled_re2.search(value) is not None
            except UnicodeEncodeError:
                if compiled is None:
                    raise
                # a lone surrogate has no UTF-8 form for RE2: `regex` takes it
        assert compiled is not None
        try:
            return compiled.search(value, timeout=PATTERN_BUDGET_S) is not None
        except TimeoutError:
            raise PatternBudgetExceeded(pattern, value) from None

    return search


# -- jsonschema keywords that match patterns (jsonschema._keywords, with the budgeted search) --


def _pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not budgeted_search(patrn)(instance):
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(
    validator: Any, pattern_properties: dict, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in pattern_properties.items():
        search = budgeted_search(patrn)
        for k, v in instance.items():
            if search(k):
                yield from validator.descend(v, subschema, path=k, schema_path=patrn)


def _additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    patterns = schema.get("patternProperties") if isinstance(schema, dict) else None
    if not patterns or not validator.is_type(instance, "object"):  # no pattern involved
        yield from _STOCK[type(validator)]["additionalProperties"](validator, ap, instance, schema)
        return
    properties = schema.get("properties", {})
    searches = [budgeted_search(p) for p in patterns]
    extras = {k for k in instance if k not in properties and not any(s(k) for s in searches)}
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        from jsonschema.exceptions import ValidationError

        verb = "does" if len(extras) == 1 else "do"
        joined = ", ".join(repr(each) for each in sorted(extras))
        names = ", ".join(repr(each) for each in sorted(patterns))
        yield ValidationError(f"{joined} {verb} not match any of the regexes: {names}")


def _one_of(validator: Any, one_of: list, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """oneOf for the quick pass (`_budgeted_class(quick=True)`): each option judged by its first
    error only, and one error without context when not exactly one option holds. The stock
    keyword lists every error of every failing option (for the message), so a record of
    Octokit's webhooks schema (a oneOf of ~300 events, each a oneOf of its actions) took 0.2 s."""
    from jsonschema.exceptions import ValidationError

    valid = 0
    for index, sub in enumerate(one_of):
        if next(validator.descend(instance, sub, schema_path=index), None) is None:
            valid += 1
            if valid > 1:
                break
    if valid != 1:
        yield ValidationError(f"valid under {valid} of the oneOf options, not exactly one")


def _any_of(validator: Any, any_of: list, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """anyOf for the quick pass: stops at the first option without an error (see `_one_of`)."""
    from jsonschema.exceptions import ValidationError

    for index, sub in enumerate(any_of):
        if next(validator.descend(instance, sub, schema_path=index), None) is None:
            return
    yield ValidationError("valid under none of the anyOf options")


class _Validator(Protocol):
    """A jsonschema validator (the library ships no types): what the guard reads of one."""

    VALIDATORS: ClassVar[dict[str, Callable[..., Any]]]  # keyword -> its check

    def iter_errors(self, instance: object) -> Iterator[ValidationError]: ...


# (stock validator class, quick) -> its budgeted extension
_BUDGETED: dict[tuple[type[_Validator], bool], type[_Validator]] = {}
_STOCK: dict[type, dict[str, Any]] = {}  # budgeted class -> the stock keyword functions
_QUICK: set[type] = set()  # the budgeted classes of the quick pass


def _budgeted_class(cls: type[_Validator], quick: bool = False) -> type[_Validator]:
    """`cls` with the budgeted pattern keywords; subschemas (`$ref` into a resource declaring
    its own `$schema` included) keep the budgeted class of their draft. `quick`: also oneOf and
    anyOf that only tell valid from invalid (their errors carry no context), for the first pass
    of `json_error`."""
    if cls in _STOCK:
        return cls
    got = _BUDGETED.get((cls, quick))
    if got is None:
        import jsonschema.validators

        keywords = {
            k: f
            for k, f in (
                ("pattern", _pattern),
                ("patternProperties", _pattern_properties),
                ("additionalProperties", _additional_properties),
                *((("oneOf", _one_of), ("anyOf", _any_of)) if quick else ()),
            )
            if k in cls.VALIDATORS
        }
        got = jsonschema.validators.extend(cls, keywords)
        got.evolve = _evolve
        _STOCK[got] = dict(cls.VALIDATORS)
        _BUDGETED[(cls, quick)] = got
        if quick:
            _QUICK.add(got)
    return got


def _evolve(self: Any, **changes: Any) -> Any:
    """jsonschema's `evolve` (a validator for a subschema, switching draft on `$schema`), kept on
    the budgeted classes: the stock one would switch to the draft's unbudgeted class."""
    import jsonschema.validators

    schema = changes.setdefault("schema", self.schema)
    cls = jsonschema.validators.validator_for(schema, default=type(self))
    return _with_class(self, _budgeted_class(cls, type(self) in _QUICK), changes)


@lru_cache(maxsize=64)
def _init_fields(cls: type) -> list[tuple[str, str]]:
    import attrs

    return [(f.name, f.alias) for f in attrs.fields(cls) if f.init]


def _with_class(
    validator: _Validator, cls: type[_Validator], changes: dict[str, Any] | None = None
) -> _Validator:
    changes = dict(changes or {})
    for name, alias in _init_fields(type(validator)):
        if alias not in changes:
            changes[alias] = getattr(validator, name)
    return cls(**changes)


def _paths_of(record: Any, value: str, path: tuple = ()) -> Iterator[tuple]:
    """Paths where `value` occurs in a record, as a string value or as an object key."""
    if isinstance(record, dict):
        for k, v in record.items():
            if k == value:
                yield (*path, k)
            yield from _paths_of(v, value, (*path, k))
    elif isinstance(record, list):
        for i, v in enumerate(record):
            yield from _paths_of(v, value, (*path, i))
    elif record == value:
        yield path


def _dotted(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = f"{out}.{part}" if out else str(part)
    return out or "(root)"


# -- xmlschema identity constraints (xs:unique/xs:key/xs:keyref) on one attribute --------------
#
# For every element an identity's selector picks, xmlschema's FieldValueSelector.get_value builds
# an XPath context with the schema, which clears and re-types the element's whole subtree: with a
# selector such as CycloneDX's `.//*` (unique @bom-ref) that is quadratic in the record's depth and
# was 80% of the guard's time. A field that is one unprefixed attribute of the element itself
# (`@bom-ref`) needs neither the subtree nor, when the attribute is absent, any XPath at all: the
# wrapper below answers those cases exactly as the stock method would and hands it the rest.

_ATTRIBUTE_FIELD = re.compile(r"\s*(?:@|attribute::)\s*([A-Za-z_][\w.\-]*)\s*")
_XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"


def _install_identity_fast_path() -> None:
    from elementpath import get_node_tree
    from xmlschema.validators.identities import FieldValueSelector, XsdKey

    stock = FieldValueSelector.get_value
    if getattr(stock, "_tdg_fast_path", False):
        return

    def get_value(self: Any, element_node: Any, namespaces: Any = None) -> Any:
        try:
            match = _ATTRIBUTE_FIELD.fullmatch(self.field.path or "")
            constraints = self.value_constraints
        except AttributeError:  # another xmlschema release's internals: the stock method only
            return stock(self, element_node, namespaces)
        if match is not None:
            elem = element_node.value
            if (
                match.group(1) not in elem.attrib
                and constraints.get(None) is None
                and not isinstance(self.field.parent, XsdKey)
            ):
                return None  # the stock result for an absent field of a unique/keyref (no default)
            if len(elem) and _XSI_TYPE not in elem.attrib:
                # the element alone (same tag and attributes): typing it costs nothing per child
                element_node = get_node_tree(elem.makeelement(elem.tag, elem.attrib), namespaces)
        return stock(self, element_node, namespaces)

    # markers read back with getattr (above, and by the tests to reach the stock method)
    get_value.__dict__.update(_tdg_fast_path=True, _tdg_stock=stock)
    FieldValueSelector.get_value = get_value  # type: ignore[method-assign]  # a monkeypatch, on purpose


class RecordValidator:
    """The validity guard of one record root; each dialect implements the checks it can do."""

    def json_error(self, record: object) -> str | None:
        """The first error of a JSON-shaped record as ``"path: message"``, or None when valid."""
        raise NotImplementedError

    def xml_error(self, xml_text: str) -> str | None:
        """The first error of one XML record element as ``"path: message"``, or None when valid."""
        raise NotImplementedError


class JsonSchemaRecordValidator(RecordValidator):
    """JSON Schema records: `validator` is a jsonschema validator built on the no-retrieval registry."""

    def __init__(self, validator: Any) -> None:
        # the same validator with the budgeted pattern keywords (its schema, registry, checker)
        self._validator = _with_class(validator, _budgeted_class(type(validator)))
        self._quick = _with_class(validator, _budgeted_class(type(validator), quick=True))

    def json_error(self, record: object) -> str | None:
        from jsonschema.exceptions import best_match

        try:
            # a valid record (nearly all) is told by the quick pass; the stock keywords then
            # find the message of an invalid one
            if next(self._quick.iter_errors(record), None) is None:
                return None
            error = best_match(self._validator.iter_errors(record))
        except PatternBudgetExceeded as exc:
            where = next(_paths_of(record, exc.value), None)
            field = _dotted(where) if where is not None else "a value"
            raise Unsatisfiable(
                f"The validity guard gave up on {field}: matching the pattern {exc.pattern!r} "
                f"took longer than its {PATTERN_BUDGET_S} s budget (the pattern backtracks "
                f"catastrophically on {exc.value[:40]!r})."
            ) from None
        if error is None:
            return None
        return f"{_dotted(error.absolute_path)}: {error.message}"

    def xml_error(self, xml_text: str) -> str | None:
        raise NotImplementedError("JSON Schema records have no XML form to validate.")


class XsdRecordValidator(RecordValidator):
    """XSD records: an instance of one global element, as XML text or as an xmlschema-decoded dict."""

    def __init__(self, schema: Any, element: Any) -> None:
        _install_identity_fast_path()
        self._schema = schema
        self._element = element

    def json_error(self, record: object) -> str | None:
        import xmlschema

        try:
            # keys of elements/attributes from other namespaces carry the schema's own prefixes
            namespaces = dict(self._schema.namespaces)
            for result in self._element.iter_encode(record, validation="lax", namespaces=namespaces):
                if isinstance(result, xmlschema.XMLSchemaValidationError):
                    return _xml_message(result)
        except xmlschema.XMLSchemaException as exc:
            return f"(root): {exc}"
        return None

    def xml_error(self, xml_text: str) -> str | None:
        import xmlschema

        try:
            resource = xmlschema.XMLResource(xml_text, defuse="always", allow="none")
        except xmlschema.XMLSchemaException as exc:
            return f"(root): not well-formed XML: {exc}"
        except SyntaxError as exc:
            return f"(root): not well-formed XML: {exc}"
        return self._element_error(resource.root)

    def xml_errors(self, xml_texts: list[str]) -> Iterator[tuple[int, str]]:
        """(index, "path: message") of each invalid record among `xml_texts` (one element each).

        The records are parsed as ONE document (inside a container element of no namespace; each
        record declares its own namespaces), which costs a third of parsing them one by one; a
        batch that is not well-formed is parsed record by record to name the broken one."""
        import xmlschema

        blob = "<tdg-records>" + "".join(xml_texts) + "</tdg-records>"
        # The text is our own writer's output, which escapes every `<` of a value: it cannot hold
        # a DOCTYPE, so the defusing pre-parse (a second, SAX pass: a third of the guard's parsing
        # time) is skipped unless markup declarations appear at all.
        defuse = "always" if "<!" in blob else "never"
        try:
            resource = xmlschema.XMLResource(blob, defuse=defuse, allow="none")
            children = list(resource.root)
        except (xmlschema.XMLSchemaException, SyntaxError):
            children = None
        if children is None or len(children) != len(xml_texts):
            for i, text in enumerate(xml_texts):
                err = self.xml_error(text)
                if err:
                    yield i, err
            return
        for i, child in enumerate(children):
            err = self._element_error(child)
            if err:
                yield i, err

    def _element_error(self, element: Any) -> str | None:
        if element.tag != self._element.name:
            return f"(root): the element is {element.tag!r}, expected {self._element.name!r}"
        # the element's own validator also covers local (non-global) record elements
        for error in self._element.iter_errors(element):
            return _xml_message(error)
        return None


def _xml_message(error: Any) -> str:
    path = getattr(error, "path", None) or "(root)"
    reason = getattr(error, "reason", None) or str(error)
    return f"{path}: {reason}"
