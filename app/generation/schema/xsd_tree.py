"""XSD components -> field tree: elements, attributes, groups, simple-type facets, substitution groups."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from elementpath.regex import translate_pattern
from xmlschema.validators import XsdAnyElement, XsdElement, XsdGroup

from app.generation.caching import short_key_cache
from app.generation.guard import XsdRecordValidator
from app.generation.model import ChoiceMode, FieldTree, Kind, Node, XmlInfo
from app.generation.schema.xsd_identity import IdentityCheck

XSD_NS = "http://www.w3.org/2001/XMLSchema"
_XML_NS = "http://www.w3.org/XML/1998/namespace"
_XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
# what a required lax/skip xs:any gets: an element no schema declares
WILDCARD_NS = "urn:tdg:wildcard"
WILDCARD_NAME = "extension"
MAX_TREE_DEPTH = 48
NODE_BUDGET = 20_000
_F = "{" + XSD_NS + "}"
_DATE_KINDS = {
    "date": Kind.DATE,
    "dateTime": Kind.DATETIME,
    "time": Kind.TIME,
    "dateTimeStamp": Kind.DATETIME,
}
_PLAIN_BUILTINS = {"string", "decimal", "integer", "boolean", "date", "dateTime", "time"}
_INTEGER_BUILTINS = {
    "integer",
    "long",
    "int",
    "short",
    "byte",
    "nonNegativeInteger",
    "positiveInteger",
    "nonPositiveInteger",
    "negativeInteger",
    "unsignedLong",
    "unsignedInt",
    "unsignedShort",
    "unsignedByte",
}


def _py(value: Any) -> Any:
    """A facet value in the field model's terms: int/Decimal/bool/str (dates and durations as ISO text)."""
    if isinstance(value, bool | int | Decimal | str):
        return value
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else str(value)
    return str(value)


def _set_fixed(node: Node, lexical: str) -> None:
    """An XSD fixed value is the only valid one: exposed as const, typed like the node's values."""
    value: Any = lexical.strip()
    try:
        if node.kind is Kind.INTEGER:
            value = int(value)
        elif node.kind is Kind.NUMBER:
            value = Decimal(value)
        elif node.kind is Kind.BOOLEAN:
            value = value in ("true", "1")
    except (ValueError, ArithmeticError):
        value = lexical
    if node.kind in (Kind.STRING, Kind.ANY):
        value = lexical
    node.const, node.has_const = value, True


def _namespace_of(component: Any) -> str | None:
    """The namespace a (possibly referenced) element/attribute appears in, None when unqualified."""
    name = str(component.name or "")
    return name[1 : name.index("}")] or None if name.startswith("{") else None


def _share_namespace(node: Node, namespace: str | None) -> None:
    """A union-typed element is written as whichever member type was drawn, under the element's
    own name: each member option carries the element's namespace so a qualified element stays
    qualified whatever member is chosen."""
    for option in node.options:
        if option.xml is None:
            option.xml = XmlInfo(namespace=namespace)
        else:
            option.xml.namespace = namespace
        if option.kind is Kind.CHOICE and option.choice_mode is ChoiceMode.UNION:
            _share_namespace(option, namespace)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


@short_key_cache(maxsize=4096)
def _xsd_pattern(regex: str, xsd_version: str) -> str:
    translated = translate_pattern(regex, xsd_version=xsd_version, back_references=False, anchors=False)
    # elementpath anchors the whole pattern itself; the field model records anchoring separately
    prefix, suffix = "^(?:", ")$(?!\\n\\Z)"
    if translated.startswith(prefix) and translated.endswith(suffix):
        translated = translated[len(prefix) : -len(suffix)]
    return translated


class XsdTreeBuilder:
    def __init__(self) -> None:
        self.node_count = 0
        self.definitions: dict[str, Node] = {}
        self.expanding: dict[int, str] = {}  # id(complex type) -> key, the current expansion stack
        self.scheduled: set[str] = set()  # REF keys whose definition is (to be) built
        self.pending: list[tuple[Any, str, str]] = []
        self.keys: dict[int, str] = {}
        self.cut = False
        self.shallow = False
        self.namespace = ""  # the record element's namespace: its components use local names

    def build(self, element: Any, root: str) -> FieldTree:
        self.namespace = element.target_namespace or ""
        node = self._element(element, "", 0)
        node.required = True
        # every REF target is built once, shallowly: complex-typed children inside it are REFs
        self.shallow = True
        while self.pending:
            xsd_element, key, path = self.pending.pop()
            if key not in self.definitions:
                self.definitions[key] = self._element(xsd_element, path, 0, force=True)
        if self.cut:
            node.unsupported.append(
                f"the tree exceeded {NODE_BUDGET} nodes; further complex types were cut into REF nodes"
            )
        return FieldTree(root=node, root_name=root, definitions=self.definitions)

    def _name(self, component: Any) -> str:
        """The record key of an element/attribute: its local name in the record's own namespace
        (or none), else its prefixed name (``xml:lang``), as xmlschema's converter spells it."""
        namespace = _namespace_of(component) or ""
        if not namespace or namespace == self.namespace:
            return str(component.local_name)
        return str(component.prefixed_name or component.local_name)

    def _key(self, element: Any) -> str:
        xsd_type = element.type
        key = self.keys.get(id(xsd_type))
        if key is None:
            key = xsd_type.prefixed_name or xsd_type.name or f"{element.prefixed_name or element.name}#type"
            if key in self.keys.values():
                key = f"{key}@{len(self.keys)}"
            self.keys[id(xsd_type)] = key
        return key

    # -- elements ------------------------------------------------------------------------------
    def _element(self, element: Any, path: str, depth: int, *, force: bool = False) -> Node:
        self.node_count += 1
        if self.node_count > NODE_BUDGET:
            self.cut = True
        name = self._name(element)
        xsd_type = element.type
        xml_info = XmlInfo(
            namespace=_namespace_of(element),
            default=element.default,
            fixed=element.fixed,
            xsd_type=xsd_type.prefixed_name if xsd_type.name else None,
            abstract=bool(element.abstract),
        )
        cut_here = id(xsd_type) in self.expanding or depth >= MAX_TREE_DEPTH or self.cut or self.shallow
        if cut_here and xsd_type.is_complex() and not xsd_type.has_simple_content() and not force:
            key = self._key(element)
            if key not in self.scheduled:
                self.scheduled.add(key)
                self.pending.append((element, key, path))
            return Node(
                Kind.REF, name=name, path=path, ref=key, nullable=bool(element.nillable), xml=xml_info
            )
        if xsd_type.is_complex():
            type_id = id(xsd_type)
            self.expanding[type_id] = self._key(element)
            try:
                node = self._complex(xsd_type, name, path, depth)
            finally:
                del self.expanding[type_id]
        else:
            node = self._simple(xsd_type, name, path)
        node.xml = xml_info if node.xml is None else node.xml
        if node.xml is not xml_info:
            node.xml.namespace, node.xml.default, node.xml.fixed = (
                xml_info.namespace,
                element.default,
                element.fixed,
            )
        if node.kind is Kind.CHOICE and node.choice_mode is ChoiceMode.UNION:
            _share_namespace(node, node.xml.namespace)
        node.nullable = bool(element.nillable)
        if element.fixed is not None:
            _set_fixed(node, element.fixed)
        if getattr(xsd_type, "abstract", False):
            # an instance needs xsi:type naming a concrete derived type, which is not generated:
            # the element is left out where the content model allows (a choice, minOccurs 0)
            node.unsupported.append(
                f"abstract type {xsd_type.prefixed_name}: an instance needs xsi:type, so it cannot be generated"
            )
        assertions = getattr(xsd_type, "assertions", None)
        if assertions:
            tests = [str(getattr(a, "path", "?")) for a in assertions]
            if node.kind is Kind.OBJECT:
                # an XPath 2.0 test over the element's content: values are drawn as usual and the
                # instances xmlschema finds false are re-drawn (generators.ObjectGen)
                node.xml.assertions = tests
                node.xml.assertion_check = XsdRecordValidator(element.schema, element)
            else:
                # simple content without attributes is modelled as a scalar: nothing to re-draw
                joined = "; ".join(tests)
                node.unsupported.append(
                    f"xs:assert {joined[:200]!r} cannot be guaranteed by the generator: no value is valid"
                )
        if (
            getattr(element, "identities", None)
            and node.kind is Kind.OBJECT
            and node.xml.assertion_check is None
        ):
            # xs:unique/xs:key/xs:keyref hold within this element: rows whose rendered element
            # breaks one (a duplicate or missing key, a keyref to no key) are re-drawn like an
            # xs:assert's, the later rounds with optional content (keyrefs included) left out.
            # Plain unique/key constraints are checked on their own (xsd_identity.py), the rest
            # by validating the element with xmlschema
            node.xml.assertion_check = IdentityCheck.of(element) or XsdRecordValidator(element.schema, element)
        annotation = element.annotation
        if annotation is not None and annotation.documentation:
            node.description = (
                " ".join((d.text or "").strip() for d in annotation.documentation).strip() or None
            )
        return node

    def _particle_element(self, element: Any, path: str, depth: int) -> Node:
        """An element inside a content model: substitution groups and repetition applied."""
        child_path = _join(path, self._name(element))
        head = element.ref if element.ref is not None else element
        members = list(head.maps.substitution_groups.get(head.name, ())) if head.is_global() else []
        if members:
            options = [self._element(m, _join(path, self._name(m)), depth + 1) for m in members]
            if not head.abstract:
                options.insert(0, self._element(element, child_path, depth + 1))
            node = Node(
                Kind.CHOICE,
                name="",
                path=path,
                options=options,
                choice_mode=ChoiceMode.XSD_CHOICE,
                xml=XmlInfo(substitutes=[self._name(m) for m in members]),
            )
        else:
            node = self._element(element, child_path, depth + 1)
            if element.abstract:
                node.unsupported.append(
                    "abstract element without substitution group members: it cannot be generated"
                )
        return self._occurs(node, element, path if members else child_path)

    def _occurs(self, node: Node, particle: Any, path: str) -> Node:
        min_occurs, max_occurs = particle.min_occurs, particle.max_occurs
        if max_occurs is None or max_occurs > 1:
            array = Node(
                Kind.ARRAY,
                name=node.name,
                path=path,
                items=node,
                min_items=min_occurs,
                max_items=max_occurs,
                required=min_occurs > 0,
            )
            return array
        node.required = min_occurs > 0
        return node

    # -- complex types ------------------------------------------------------------------------
    def _complex(self, xsd_type: Any, name: str, path: str, depth: int) -> Node:
        node = Node(Kind.OBJECT, name=name, path=path, additional_properties=False)
        attributes = self._attributes(xsd_type, path)
        if xsd_type.has_simple_content():
            text = self._simple(xsd_type.content, "$", _join(path, "$"))
            text.xml = XmlInfo(text=True)
            if not attributes:
                text.name, text.path, text.xml = name, path, None
                return text
            node.children = [*attributes, text]
            return node
        node.children = attributes
        content = xsd_type.content
        if xsd_type.mixed:
            node.unsupported.append("mixed content: text between child elements is not generated")
        if isinstance(content, XsdGroup):
            if content.model == "all":
                node.xml = XmlInfo(all_group=True)
            self._group_into(node, content, path, depth, top=True)
        return node

    def _attributes(self, xsd_type: Any, path: str) -> list[Node]:
        nodes: list[Node] = []
        for key, attribute in xsd_type.attributes.items():
            if key is None or not hasattr(attribute, "use"):
                continue  # xs:anyAttribute: no extra attributes are generated
            if attribute.use == "prohibited":
                continue
            local = self._name(attribute)
            child = self._simple(attribute.type, f"@{local}", _join(path, f"@{local}"))
            child.required = attribute.use == "required"
            child.xml = XmlInfo(
                namespace=_namespace_of(attribute),
                attribute=True,
                default=attribute.default,
                fixed=attribute.fixed,
                xsd_type=attribute.type.prefixed_name if attribute.type.name else None,
            )
            if attribute.fixed is not None:
                _set_fixed(child, attribute.fixed)
            nodes.append(child)
        return nodes

    def _group_into(self, parent: Node, group: Any, path: str, depth: int, *, top: bool = False) -> None:
        """Add the particles of `group` to `parent` (an OBJECT), splicing plain sequences."""
        repeated = group.max_occurs is None or group.max_occurs > 1
        if group.model == "choice" or repeated or (not top and group.min_occurs == 0):
            parent.children.append(self._group_node(group, path, depth))
            return
        for particle in group:
            self._particle_into(parent, particle, path, depth)

    def _particle_into(self, parent: Node, particle: Any, path: str, depth: int) -> None:
        if isinstance(particle, XsdElement):
            child = self._particle_element(particle, path, depth)
            if child.name and parent.child(child.name) is not None:
                parent.unsupported.append(
                    f"element {child.name!r} appears twice in the content model; "
                    "the second occurrence is not generated"
                )
                return
            parent.children.append(child)
        elif isinstance(particle, XsdGroup):
            self._group_into(parent, particle, path, depth)
        elif isinstance(particle, XsdAnyElement):
            if particle.min_occurs == 0:
                parent.unsupported.append("optional xs:any wildcard: no extra elements are generated")
                return
            wildcard = self._wildcard(particle, path, depth)
            if wildcard is None:
                parent.unsupported.append("required xs:any wildcard content cannot be generated")
            else:
                parent.children.append(self._occurs(wildcard, particle, wildcard.path))

    def _wildcard(self, particle: Any, path: str, depth: int) -> Node | None:
        """An element a required xs:any accepts: under lax/skip, a text element in a namespace of
        our own (or the target/no namespace when only those are allowed) that no declaration
        names; under strict, the first concrete global element the wildcard matches."""
        if particle.process_contents in ("lax", "skip"):
            target = particle.target_namespace or ""
            listed = [ns for ns in getattr(particle, "namespace", ()) if not ns.startswith("##")]
            for ns in (WILDCARD_NS, target, "", *listed):
                qname = f"{{{ns}}}{WILDCARD_NAME}" if ns else WILDCARD_NAME
                if particle.is_matching(qname) and qname not in particle.maps.elements:
                    node = Node(
                        Kind.STRING, name=WILDCARD_NAME, path=_join(path, WILDCARD_NAME), min_length=1
                    )
                    node.xml = XmlInfo(namespace=ns)
                    return node
            return None
        # an element outside the ancestors' types, simple ones first: the record stays finite
        candidates = sorted(
            particle.maps.elements.values(),
            key=lambda e: (id(e.type) in self.expanding, e.type.is_complex(), e.name or ""),
        )
        for element in candidates:
            ns = element.target_namespace or ""
            if (
                ns in (XSD_NS, _XML_NS, _XSI_NS)
                or element.abstract
                or getattr(element.type, "abstract", False)
                or not particle.is_matching(element.name)
            ):
                continue
            return self._element(element, _join(path, self._name(element)), depth + 1)
        return None

    def _group_node(self, group: Any, path: str, depth: int) -> Node:
        """An anonymous model group (name ""): a CHOICE, or an OBJECT for a sequence/all."""
        if group.model == "choice":
            options: list[Node] = []
            for particle in group:
                holder = Node(Kind.OBJECT, name="", path=path, additional_properties=False)
                self._particle_into(holder, particle, path, depth)
                if len(holder.children) == 1 and not holder.unsupported:
                    options.append(holder.children[0])
                else:
                    options.append(holder)
            node = Node(Kind.CHOICE, name="", path=path, options=options, choice_mode=ChoiceMode.XSD_CHOICE)
        else:
            node = Node(Kind.OBJECT, name="", path=path, additional_properties=False)
            for particle in group:
                self._particle_into(node, particle, path, depth)
        return self._occurs(node, group, path)

    # -- simple types -------------------------------------------------------------------------
    def _simple(self, xsd_type: Any, name: str, path: str) -> Node:
        self.node_count += 1
        chain: list[Any] = []
        current = xsd_type
        while current is not None and len(chain) < 64:
            chain.append(current)
            if current.is_list() and hasattr(current, "item_type"):
                break
            if current.is_union() and hasattr(current, "member_types"):
                break
            current = getattr(current, "base_type", None)
        last = chain[-1]
        if last.is_union() and hasattr(last, "member_types"):
            options = [self._simple(m, "", path) for m in last.member_types]
            node = Node(Kind.CHOICE, name=name, path=path, options=options, choice_mode=ChoiceMode.UNION)
            self._enumeration(node, chain)
            return node
        if last.is_list() and hasattr(last, "item_type"):
            item = self._simple(last.item_type, name, path)
            node = Node(Kind.ARRAY, name=name, path=path, items=item, xml=XmlInfo(list_value=True))
            lo, hi = self._lengths(chain)
            node.min_items, node.max_items = lo, hi
            self._enumeration(node, chain)
            return node
        primitive = getattr(xsd_type, "primitive_type", None)
        primitive_name = primitive.local_name if primitive is not None else "anySimpleType"
        builtin = next((t for t in chain if t.is_global() and t.target_namespace == XSD_NS), None)
        builtin_name = builtin.local_name if builtin is not None else primitive_name
        node = Node(self._kind(builtin_name, primitive_name, chain), name=name, path=path)
        if (
            builtin_name not in _PLAIN_BUILTINS
            and node.kind is not Kind.INTEGER
            and builtin_name != "anySimpleType"
        ):
            node.format = f"xsd:{builtin_name}"
        if node.kind is Kind.ANY:
            return node
        self._facets(node, chain, builtin_name)
        if node.kind is Kind.BOOLEAN and node.patterns:
            _boolean_lexicals(node)
        return node

    @staticmethod
    def _kind(builtin_name: str, primitive_name: str, chain: list[Any]) -> Kind:
        if builtin_name in _INTEGER_BUILTINS:
            return Kind.INTEGER
        if primitive_name in _DATE_KINDS and builtin_name in _DATE_KINDS:
            return _DATE_KINDS[builtin_name]
        if primitive_name in ("decimal", "float", "double"):
            return Kind.NUMBER
        if primitive_name == "boolean":
            return Kind.BOOLEAN
        if primitive_name in ("anySimpleType", "anyAtomicType"):
            return Kind.ANY if builtin_name in ("anySimpleType", "anyAtomicType") else Kind.STRING
        return Kind.STRING

    def _lengths(self, chain: list[Any]) -> tuple[int | None, int | None]:
        lo: int | None = None
        hi: int | None = None
        for level in chain:
            facets = getattr(level, "facets", None) or {}
            for key, facet in facets.items():
                if key == _F + "length":
                    lo = facet.value if lo is None else max(lo, facet.value)
                    hi = facet.value if hi is None else min(hi, facet.value)
                elif key == _F + "minLength":
                    lo = facet.value if lo is None else max(lo, facet.value)
                elif key == _F + "maxLength":
                    hi = facet.value if hi is None else min(hi, facet.value)
        return lo, hi

    def _enumeration(self, node: Node, chain: list[Any]) -> None:
        for level in chain:  # the most derived enumeration is the narrowest
            facet = (getattr(level, "facets", None) or {}).get(_F + "enumeration")
            if facet is not None:
                node.enum = [_py(v) for v in facet.enumeration]
                return

    def _facets(self, node: Node, chain: list[Any], builtin_name: str) -> None:
        lo: tuple[Any, bool] | None = None
        hi: tuple[Any, bool] | None = None
        xsd_version = "1.1" if getattr(chain[0], "xsd_version", "1.0") == "1.1" else "1.0"
        for level in chain:
            facets = getattr(level, "facets", None) or {}
            for key, facet in facets.items():
                if key is None:
                    continue
                local = key.removeprefix(_F)
                value = getattr(facet, "value", None)
                if local in ("minInclusive", "minExclusive") and value is not None:
                    if lo is None or value > lo[0] or (value == lo[0] and local == "minExclusive"):
                        lo = (value, local == "minExclusive")
                elif local in ("maxInclusive", "maxExclusive") and value is not None:
                    if hi is None or value < hi[0] or (value == hi[0] and local == "maxExclusive"):
                        hi = (value, local == "maxExclusive")
                elif local == "totalDigits" and value is not None:
                    total = node.total_digits
                    node.total_digits = value if total is None else min(total, value)
                elif local == "fractionDigits" and value is not None:
                    fraction = node.fraction_digits
                    node.fraction_digits = value if fraction is None else min(fraction, value)
                elif local == "pattern" and (level.target_namespace != XSD_NS or node.kind is Kind.STRING):
                    regexps = list(facet.regexps)
                    try:
                        parts = [_xsd_pattern(r, xsd_version) for r in regexps]
                    except Exception as exc:  # elementpath raises its own RegexError subclasses
                        node.unsupported.append(f"pattern cannot be translated: {str(exc)[:150]}")
                        continue
                    translated = parts[0] if len(parts) == 1 else "|".join(f"(?:{p})" for p in parts)
                    if translated not in node.patterns:
                        node.patterns.append(translated)
                elif local in ("assertion", "assert", "explicitTimezone"):
                    node.unsupported.append(f"XSD 1.1 facet '{local}' is not modelled")
        node.pattern_anchored = True
        node.min_length, node.max_length = self._lengths(chain)
        self._enumeration(node, chain)
        if node.kind is Kind.INTEGER:
            if lo is not None:
                node.minimum = math.floor(lo[0]) + 1 if lo[1] else math.ceil(lo[0])
            if hi is not None:
                node.maximum = math.ceil(hi[0]) - 1 if hi[1] else math.floor(hi[0])
        else:
            if lo is not None:
                node.minimum, node.exclusive_minimum = _py(lo[0]), lo[1]
            if hi is not None:
                node.maximum, node.exclusive_maximum = _py(hi[0]), hi[1]


def _boolean_lexicals(node: Node) -> None:
    """A boolean with a pattern (SOAP's mustUnderstand: `0|1`) draws from the lexical forms the
    pattern accepts, written as they are."""
    try:
        compiled = [re.compile(p) for p in node.patterns]
    except (re.error, RecursionError):
        return
    forms = [v for v in ("true", "false", "1", "0") if all(c.fullmatch(v) for c in compiled)]
    if node.enum is not None:  # enumerated values come decoded: True/False
        truths = {e if isinstance(e, bool) else str(e).lower() in ("true", "1") for e in node.enum}
        forms = [v for v in forms if (v in ("true", "1")) in truths]
    node.patterns = []
    if forms:
        node.kind, node.enum = Kind.STRING, forms
    else:
        node.unsupported.append("the boolean's pattern accepts none of true, false, 1, 0: no value is valid")
