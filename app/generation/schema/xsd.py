"""XSD (1.0 / 1.1) -> field model, with xmlschema doing all XSD parsing.

Safety: every XML upload is pre-scanned with expat, which rejects any DTD or entity declaration
before xmlschema sees the bytes; xmlschema then runs with ``defuse='always'`` and
``allow='none'`` (single file: no include/import/redefine/override may be read at all, apart
from the XML-namespace schemas xmlschema ships) or ``allow='sandbox'`` inside the private
directory a zip upload was extracted to. A blocked import, which xmlschema only warns about,
is turned into Invalid.

Record roots: every global element, plus ``container/item`` for a global element that only
wraps one repeated child (``customer_orders/customer_order``). The default root is the first
global element that no other global element uses; when that element is such a container, its
repeated child is the default record.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
import xml.parsers.expat
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import xmlschema
from elementpath.regex import translate_pattern
from xmlschema.exceptions import XMLResourceBlocked
from xmlschema.validators import XsdAnyElement, XsdElement, XsdGroup

from app.core.errors import Invalid
from app.generation.guard import RecordValidator, XsdRecordValidator
from app.generation.model import ChoiceMode, FieldTree, Kind, Node, XmlInfo
from app.generation.schema.loader import decode_utf8

XSD_NS = "http://www.w3.org/2001/XMLSchema"
_VC_MIN_VERSION = "http://www.w3.org/2007/XMLSchema-versioning minVersion"
_XSD11_ONLY = frozenset({"assert", "assertion", "alternative", "override", "openContent",
                         "defaultOpenContent", "explicitTimezone"})
_SKIP_NAMESPACES = frozenset({XSD_NS, "http://www.w3.org/XML/1998/namespace",
                              "http://www.w3.org/2001/XMLSchema-instance"})
MAX_XML_DEPTH = 256
MAX_PARTICLES_PER_TYPE = 1_000
# xmlschema checks a schema against the meta-schema at roughly 5-10k declarations per second here;
# this cap keeps every parse within a few seconds. The corpus's largest (CycloneDX 1.6, ~6,300)
# fits; a very large standard (thousands of types over many files) may not
MAX_XSD_COMPONENTS = 10_000
MAX_TREE_DEPTH = 48
NODE_BUDGET = 20_000

_F = "{" + XSD_NS + "}"
_DATE_KINDS = {"date": Kind.DATE, "dateTime": Kind.DATETIME, "time": Kind.TIME, "dateTimeStamp": Kind.DATETIME}
_PLAIN_BUILTINS = {"string", "decimal", "integer", "boolean", "date", "dateTime", "time"}
_INTEGER_BUILTINS = {"integer", "long", "int", "short", "byte", "nonNegativeInteger", "positiveInteger",
                     "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
                     "unsignedByte"}


# ---------------------------------------------------------------------------------------------
# pre-scan


class _Stop(Exception):
    pass


@dataclass
class _Scan:
    root: str = ""
    xsd11: bool = False
    target_namespace: str | None = None
    components: int = 0  # elements in the XSD namespace


def prescan_xml(text: str, what: str = "The XML document") -> _Scan:
    """Reject DTDs/entities and over-deep nesting; report the root element and XSD 1.1 use."""
    scan = _Scan()
    depth = 0
    # particles per complex type: xmlschema's determinism (UPA) check is quadratic in this number
    particles: list[int] = []
    # the bytes were already decoded as UTF-8: expat must not switch to a declared encoding
    parser = xml.parsers.expat.ParserCreate(encoding="UTF-8", namespace_separator=" ")

    def declaration(_version: str | None, encoding: str | None, _standalone: int) -> None:
        if encoding is not None and encoding.lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
            raise Invalid(f"{what} declares the encoding {encoding[:40]!r}; only UTF-8 (or ASCII) is accepted.")

    def doctype(*_: Any) -> None:
        raise Invalid(f"{what} declares a DTD; DTDs and entities are not allowed.")

    def entity(*_: Any) -> None:
        raise Invalid(f"{what} declares an entity; DTDs and entities are not allowed.")

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_XML_DEPTH:
            raise Invalid(f"{what} is nested deeper than {MAX_XML_DEPTH} elements.")
        if not scan.root:
            scan.root = name
            scan.target_namespace = attrs.get("targetNamespace")
        if attrs.get(_VC_MIN_VERSION) == "1.1":
            scan.xsd11 = True
        ns, _, local = name.rpartition(" ")
        if ns != XSD_NS:
            return
        scan.components += 1
        if local in _XSD11_ONLY:
            scan.xsd11 = True
        if local == "complexType":
            particles.append(0)
        elif local in ("element", "any", "group") and particles:
            particles[-1] += 1
            if particles[-1] > MAX_PARTICLES_PER_TYPE:
                raise Invalid(f"{what} has a complex type with more than {MAX_PARTICLES_PER_TYPE} "
                              "particles in its content model; that is the limit.")

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1
        if name == f"{XSD_NS} complexType":
            particles.pop()

    parser.XmlDeclHandler = declaration
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text.encode("utf-8"), True)
    except xml.parsers.expat.ExpatError as exc:
        raise Invalid(f"{what} is not well-formed XML (line {exc.lineno}, column {exc.offset}).") from None
    return scan


# ---------------------------------------------------------------------------------------------
# loading


_LOCAL_PATH = re.compile(r"""(?<![:/\w])(?:file://)?/[^\s'",\]]+""")


def _scrub(message: str) -> str:
    """A message without server paths: every local path or file URL is cut to its file name."""
    return _LOCAL_PATH.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], message)


def _check_size(components: int) -> None:
    if components > MAX_XSD_COMPONENTS:
        raise Invalid(f"The XSD has {components} declarations (XSD elements); the limit is {MAX_XSD_COMPONENTS}.")


def _schema_class(xsd11: bool) -> type[xmlschema.XMLSchemaBase]:
    return xmlschema.XMLSchema11 if xsd11 else xmlschema.XMLSchema10


def _build(source: str, *, xsd11: bool, allow: str, base_url: str | None,
           locations: list[tuple[str, str]] | None = None) -> xmlschema.XMLSchemaBase:
    with warnings.catch_warnings():
        # failures are read from each schema's own `warnings` list below (thread-safe); the
        # global warning machinery is only silenced here so nothing is printed
        warnings.simplefilter("ignore")
        try:
            schema = _schema_class(xsd11)(source, allow=allow, defuse="always", base_url=base_url,
                                          locations=locations)
        except XMLResourceBlocked as exc:
            raise Invalid(
                "The schema includes or imports a location outside the upload "
                f"({_scrub(str(exc).removeprefix('block access to resource '))[:200]}); only files inside "
                "the upload are read."
            ) from None
        except xmlschema.XMLSchemaParseError as exc:
            raise Invalid(f"The XSD is not valid: {_scrub(exc.message or str(exc))[:300]}") from None
        except (xmlschema.XMLSchemaException, OSError, SyntaxError, ValueError, LookupError) as exc:
            raise Invalid(f"The XSD cannot be loaded: {_scrub(str(exc).splitlines()[0])[:300]}") from None
        except RecursionError:
            raise Invalid("The XSD is nested too deeply to be loaded.") from None
    # xmlschema only warns when an import/include/redefine/override could not be read
    for loaded in schema.maps.iter_schemas():
        for message in loaded.warnings:
            if "failed" in message.lower():
                raise Invalid(
                    "The schema imports or includes a location that cannot be read inside the upload: "
                    f"{_scrub(message)[:300]}"
                )
    return schema


def load_xsd_text(text: str) -> XsdDocument:
    """A single-file XSD upload: nothing outside the text may be read."""
    scan = prescan_xml(text)
    if scan.root != f"{XSD_NS} schema":
        raise Invalid("The XML document is not an XSD: its root element is not xs:schema.")
    _check_size(scan.components)
    schema = _build(text, xsd11=scan.xsd11, allow="none", base_url=None)
    return XsdDocument(schema, "1.1" if scan.xsd11 else "1.0")


def scan_members(members: dict[str, bytes]) -> dict[str, _Scan]:
    """UTF-8 and DTD checks of every zip member that looks like XML, before anything else."""
    scans: dict[str, _Scan] = {}
    for name, blob in members.items():
        text = decode_utf8(blob, f"The zip member {name!r}")
        if text.lstrip().startswith("<"):
            scans[name] = prescan_xml(text, f"The zip member {name!r}")
    return scans


def load_xsd_directory(directory: Path, main: str, scans: dict[str, _Scan]) -> XsdDocument:
    """A zip upload extracted to `directory`: the main schema may read files inside it only."""
    scan = scans.get(main, _Scan())
    if scan.root != f"{XSD_NS} schema":
        raise Invalid(f"The zip member {main!r} is not an XSD: its root element is not xs:schema.")
    _check_size(sum(s.components for s in scans.values()))
    xsd11 = any(s.xsd11 for s in scans.values())
    # imports are found by namespace among the members, so a remote schemaLocation hint is never needed
    locations = [(s.target_namespace, (directory / name).as_uri()) for name, s in scans.items()
                 if s.root == f"{XSD_NS} schema" and s.target_namespace and name != main]
    schema = _build(str(directory / main), xsd11=xsd11, allow="sandbox", base_url=str(directory),
                    locations=locations)
    return XsdDocument(schema, "1.1" if xsd11 else "1.0")


@dataclass
class XsdDocument:
    """A built xmlschema schema plus its record roots."""

    schema: Any
    version: str
    roots: list[str] = field(default_factory=list)
    default_root: str = ""
    _elements: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        target = self.schema.target_namespace or ""
        globals_ = [e for e in self.schema.maps.elements.values()
                    if (e.target_namespace or "") not in _SKIP_NAMESPACES]
        for element in globals_:
            ns = element.target_namespace or ""
            name = element.local_name if ns == target else (element.prefixed_name or element.name)
            self.roots.append(name)
            self._elements[name] = element
        if not self.roots:
            raise Invalid("The XSD declares no global element, so it has no record root.")
        if all(self._elements[n].abstract for n in self.roots):
            # a substitution group member would itself be a global element, and concrete: so no
            # element of this schema can be a document's root (a library for other schemas)
            names = ", ".join(self.roots[:10]) + (", ..." if len(self.roots) > 10 else "")
            raise Invalid(f"The XSD's global elements are all abstract ({names}) and none has a concrete "
                          "substitute, so no document can have a root; it is a library for other schemas.")
        used = _referenced_globals(globals_)
        candidates = [n for n in self.roots if id(self._elements[n]) not in used] or self.roots
        if all(self._elements[n].abstract for n in candidates):
            # an abstract element has no instances: prefer any concrete global element
            candidates = [n for n in self.roots if not self._elements[n].abstract] or candidates
        complex_first = sorted(candidates, key=lambda n: (
            self._elements[n].abstract, not self._elements[n].type.is_complex()))
        best = complex_first[0]
        for name in list(self.roots):
            item = _container_item(self._elements[name])
            if item is not None:
                path = f"{name}/{item.local_name}"
                self.roots.append(path)
                self._elements[path] = item
                if name == best:
                    best = path
        self.default_root = best

    def canonical_root(self, root: str) -> str | None:
        if root in self._elements:
            return root
        for name, element in self._elements.items():
            if root in (element.name, element.prefixed_name) and "/" not in name:
                return name
        return None

    def element(self, root: str) -> Any:
        return self._elements[root]

    def field_tree(self, root: str) -> FieldTree:
        try:
            return _XsdTreeBuilder().build(self._elements[root], root)
        except RecursionError:
            raise Invalid("The XSD is nested too deeply to be modelled.") from None

    def record_validator(self, root: str) -> RecordValidator:
        return XsdRecordValidator(self.schema, self._elements[root])


def _referenced_globals(globals_: list[Any]) -> set[int]:
    """ids of global elements that some other global element's content refers to."""
    used: set[int] = set()
    seen_types: set[int] = set()
    for element in globals_:
        stack = [element.type]
        while stack:
            xsd_type = stack.pop()
            if id(xsd_type) in seen_types or not xsd_type.is_complex():
                continue
            seen_types.add(id(xsd_type))
            content = xsd_type.content
            if isinstance(content, XsdGroup):
                for particle in content.iter_elements():
                    if isinstance(particle, XsdElement):
                        if particle.ref is not None:
                            used.add(id(particle.ref))
                        stack.append(particle.type)
    return used


def _container_item(element: Any) -> Any | None:
    """The repeated child of an element that only wraps a list of one element, else None."""
    xsd_type = element.type
    if not xsd_type.is_complex() or xsd_type.attributes or not isinstance(xsd_type.content, XsdGroup):
        return None
    particles = list(xsd_type.content)
    if len(particles) != 1 or not isinstance(particles[0], XsdElement):
        return None
    item = particles[0]
    if item.max_occurs is not None and item.max_occurs <= 1:
        return None
    return item if item.type.is_complex() else None


# ---------------------------------------------------------------------------------------------
# building


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
    return name[1:name.index("}")] or None if name.startswith("{") else None


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


@functools.lru_cache(maxsize=4096)
def _xsd_pattern(regex: str, xsd_version: str) -> str:
    translated = translate_pattern(regex, xsd_version=xsd_version, back_references=False, anchors=False)
    # elementpath anchors the whole pattern itself; the field model records anchoring separately
    prefix, suffix = "^(?:", ")$(?!\\n\\Z)"
    if translated.startswith(prefix) and translated.endswith(suffix):
        translated = translated[len(prefix):-len(suffix)]
    return translated


class _XsdTreeBuilder:
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
                f"the tree exceeded {NODE_BUDGET} nodes; further complex types were cut into REF nodes")
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
            default=element.default, fixed=element.fixed,
            xsd_type=xsd_type.prefixed_name if xsd_type.name else None,
            abstract=bool(element.abstract),
        )
        cut_here = id(xsd_type) in self.expanding or depth >= MAX_TREE_DEPTH or self.cut or self.shallow
        if cut_here and xsd_type.is_complex() and not xsd_type.has_simple_content() and not force:
            key = self._key(element)
            if key not in self.scheduled:
                self.scheduled.add(key)
                self.pending.append((element, key, path))
            return Node(Kind.REF, name=name, path=path, ref=key, nullable=bool(element.nillable), xml=xml_info)
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
            node.xml.namespace, node.xml.default, node.xml.fixed = xml_info.namespace, element.default, element.fixed
        if node.kind is Kind.CHOICE and node.choice_mode is ChoiceMode.UNION:
            _share_namespace(node, node.xml.namespace)
        node.nullable = bool(element.nillable)
        if element.fixed is not None:
            _set_fixed(node, element.fixed)
        if getattr(xsd_type, "abstract", False):
            node.unsupported.append(f"abstract type {xsd_type.prefixed_name}: needs xsi:type, not generated")
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
                node.unsupported.append(f"xs:assert {joined[:200]!r} cannot be guaranteed by the generator: "
                                        f"no value is valid")
        annotation = element.annotation
        if annotation is not None and annotation.documentation:
            node.description = " ".join(
                (d.text or "").strip() for d in annotation.documentation).strip() or None
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
            node = Node(Kind.CHOICE, name="", path=path, options=options, choice_mode=ChoiceMode.XSD_CHOICE,
                        xml=XmlInfo(substitutes=[self._name(m) for m in members]))
        else:
            node = self._element(element, child_path, depth + 1)
            if element.abstract:
                node.unsupported.append("abstract element without substitution group members")
        return self._occurs(node, element, path if members else child_path)

    def _occurs(self, node: Node, particle: Any, path: str) -> Node:
        min_occurs, max_occurs = particle.min_occurs, particle.max_occurs
        if max_occurs is None or max_occurs > 1:
            array = Node(Kind.ARRAY, name=node.name, path=path, items=node, min_items=min_occurs,
                         max_items=max_occurs, required=min_occurs > 0)
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
                attribute=True, default=attribute.default, fixed=attribute.fixed,
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
                parent.unsupported.append(f"element {child.name!r} appears twice in the content model; "
                                          "the second occurrence is not generated")
                return
            parent.children.append(child)
        elif isinstance(particle, XsdGroup):
            self._group_into(parent, particle, path, depth)
        elif isinstance(particle, XsdAnyElement):
            if particle.min_occurs > 0:
                parent.unsupported.append("required xs:any wildcard content cannot be generated")
            else:
                parent.unsupported.append("optional xs:any wildcard: no extra elements are generated")

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
        if builtin_name not in _PLAIN_BUILTINS and node.kind is not Kind.INTEGER and builtin_name != "anySimpleType":
            node.format = f"xsd:{builtin_name}"
        if node.kind is Kind.ANY:
            return node
        self._facets(node, chain, builtin_name)
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
                elif local == "totalDigits":
                    node.total_digits = value if node.total_digits is None else min(node.total_digits, value)
                elif local == "fractionDigits":
                    node.fraction_digits = value if node.fraction_digits is None else min(
                        node.fraction_digits, value)
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
