"""XSD (1.0 / 1.1) documents, with xmlschema doing all XSD parsing: prescan limits, zip members, roots;
xsd_tree.py builds the field tree. Design notes: docs/generation.md."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request
import warnings
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xmlschema
from xmlschema.exceptions import XMLResourceBlocked
from xmlschema.validators import XsdElement, XsdGroup

from app.generation.errors import SchemaError
from app.generation.gc_pause import gc_paused
from app.generation.guard import RecordValidator, XsdRecordValidator
from app.generation.model import FieldTree
from app.generation.schema import xsd_cache
from app.generation.schema.decode import decode_utf8
from app.generation.schema.xml_dtd import DtdPolicy, without_dtd
from app.generation.schema.xsd_tree import XSD_NS, XsdTreeBuilder

_VC_MIN_VERSION = "http://www.w3.org/2007/XMLSchema-versioning minVersion"
_XSD11_ONLY = frozenset(
    {
        "assert",
        "assertion",
        "alternative",
        "override",
        "openContent",
        "defaultOpenContent",
        "explicitTimezone",
    }
)
_SKIP_NAMESPACES = frozenset(
    {XSD_NS, "http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2001/XMLSchema-instance"}
)
MAX_XML_DEPTH = 256
MAX_PARTICLES_PER_TYPE = 1_000
# xmlschema checks a schema against the meta-schema at roughly 5-10k declarations per second here;
# this cap keeps every parse within a few seconds. The corpus's largest, UBL 2.1 Invoice (12,523
# over 17 files, about 2 s), fits; a larger standard may not
MAX_XSD_COMPONENTS = 20_000


class _Stop(Exception):
    pass


@dataclass
class _Scan:
    root: str = ""
    xsd11: bool = False
    target_namespace: str | None = None
    components: int = 0  # elements in the XSD namespace
    # a document with an accepted DOCTYPE, rewritten without it (entities expanded): what xmlschema reads
    text: str | None = None


def prescan_xml(text: str, what: str = "The XML document") -> _Scan:
    """Reject DTDs (but literal internal entities, see xml_dtd.py) and over-deep nesting; report
    the root element and XSD 1.1 use."""
    scan = _Scan()
    depth = 0
    # particles per complex type: xmlschema's determinism (UPA) check is quadratic in this number
    particles: list[int] = []
    # the bytes were already decoded as UTF-8: expat must not switch to a declared encoding
    parser = xml.parsers.expat.ParserCreate(encoding="UTF-8", namespace_separator=" ")

    def declaration(_version: str | None, encoding: str | None, _standalone: int) -> None:
        if encoding is not None and encoding.lower().replace("_", "-") not in (
            "utf-8",
            "utf8",
            "us-ascii",
            "ascii",
        ):
            raise SchemaError(
                f"{what} declares the encoding {encoding[:40]!r}; only UTF-8 (or ASCII) is accepted."
            )

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_XML_DEPTH:
            raise SchemaError(f"{what} is nested deeper than {MAX_XML_DEPTH} elements.")
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
                raise SchemaError(
                    f"{what} has a complex type with more than {MAX_PARTICLES_PER_TYPE} "
                    "particles in its content model; that is the limit."
                )

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1
        if name == f"{XSD_NS} complexType":
            particles.pop()

    dtd = DtdPolicy(text, what)
    dtd.install(parser)
    parser.XmlDeclHandler = declaration
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text.encode("utf-8"), True)
    except xml.parsers.expat.ExpatError as exc:
        raise SchemaError(
            f"{what} is not well-formed XML (line {exc.lineno}, column {exc.offset})."
        ) from None
    if dtd.seen:
        scan.text = without_dtd(text)
    return scan


_LOCAL_PATH = re.compile(r"""(?<![:/\w])(?:file://)?/[^\s'",\]]+""")


def _scrub(message: str) -> str:
    """A message without server paths: every local path or file URL is cut to its file name."""
    return _LOCAL_PATH.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], message)


def _check_size(components: int) -> None:
    if components > MAX_XSD_COMPONENTS:
        raise SchemaError(
            f"The XSD has {components} declarations (XSD elements); the limit is {MAX_XSD_COMPONENTS}."
        )


def _schema_class(xsd11: bool) -> type[xmlschema.XMLSchemaBase]:
    return xmlschema.XMLSchema11 if xsd11 else xmlschema.XMLSchema10


class _ConfinedFileHandler(urllib.request.FileHandler):
    """Opens file URLs inside one directory only. xmlschema's own `allow="sandbox"` confines each
    import to the importing file's folder, so UBL's maindoc/ could not import ../common/."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root.resolve()

    def file_open(self, req: urllib.request.Request) -> Any:
        path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(req.full_url).path)).resolve()
        if not path.is_relative_to(self.root):
            raise XMLResourceBlocked(f"block access to out of sandbox file {req.full_url}")
        return super().file_open(req)


def _confined_opener(root: Path) -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()
    opener.add_handler(_ConfinedFileHandler(root))
    return opener


def _build(
    source: str,
    *,
    xsd11: bool,
    allow: str,
    base_url: str | None,
    locations: list[tuple[str, str]] | None = None,
    confine: Path | None = None,
) -> xmlschema.XMLSchemaBase:
    """`confine`: read local files inside that directory only (any depth), nothing remote."""
    with warnings.catch_warnings():
        # failures are read from each schema's own `warnings` list below (thread-safe); the
        # global warning machinery is only silenced here so nothing is printed
        warnings.simplefilter("ignore")
        try:
            schema = _schema_class(xsd11)(
                source,
                allow="local" if confine else allow,
                defuse="always",
                base_url=base_url,
                locations=locations,
                opener=_confined_opener(confine) if confine else None,
            )
        except XMLResourceBlocked as exc:
            raise SchemaError(
                "The schema includes or imports a location outside the upload "
                f"({_scrub(str(exc).removeprefix('block access to resource '))[:200]}); only files inside "
                "the upload are read."
            ) from None
        except xmlschema.XMLSchemaParseError as exc:
            raise SchemaError(f"The XSD is not valid: {_scrub(exc.message or str(exc))[:300]}") from None
        except (xmlschema.XMLSchemaException, OSError, SyntaxError, ValueError, LookupError) as exc:
            raise SchemaError(f"The XSD cannot be loaded: {_scrub(str(exc).splitlines()[0])[:300]}") from None
        except RecursionError:
            raise SchemaError("The XSD is nested too deeply to be loaded.") from None
    # xmlschema only warns when an import/include/redefine/override could not be read
    for loaded in schema.maps.iter_schemas():
        for message in loaded.warnings:
            if "failed" in message.lower():
                raise SchemaError(
                    "The schema imports or includes a location that cannot be read inside the upload: "
                    f"{_scrub(message)[:300]}"
                )
    return schema


def load_xsd_text(text: str) -> XsdDocument:
    """A single-file XSD upload: nothing outside the text may be read."""
    scan = prescan_xml(text)
    if scan.root != f"{XSD_NS} schema":
        raise SchemaError("The XML document is not an XSD: its root element is not xs:schema.")
    _check_size(scan.components)
    schema = _single_file(scan.text or text, scan.xsd11)
    return XsdDocument(schema, "1.1" if scan.xsd11 else "1.0")


def _single_file(source: str, xsd11: bool) -> xmlschema.XMLSchemaBase:
    """`_build` of a single-file XSD, from the disk cache when the caller turned it on
    (xsd_cache.enabled(): `tdg generate`). Only a schema `_build` accepted is ever stored."""
    if not xsd_cache.is_enabled():
        return _build(source, xsd11=xsd11, allow="none", base_url=None)
    key = xsd_cache.cache_key(source, f"xsd11={xsd11} allow=none base_url=None defuse=always")
    cached = xsd_cache.load(key)
    if isinstance(cached, _schema_class(xsd11)):
        return cached
    with gc_paused():
        schema = _build(source, xsd11=xsd11, allow="none", base_url=None)
    xsd_cache.store(key, schema)
    return schema


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
        raise SchemaError(f"The zip member {main!r} is not an XSD: its root element is not xs:schema.")
    _check_size(sum(s.components for s in scans.values()))
    xsd11 = any(s.xsd11 for s in scans.values())
    for name, s in scans.items():
        if s.text is not None:  # the member as xmlschema may read it: no DOCTYPE
            (directory / name).write_text(s.text, encoding="utf-8")
    # imports are found by namespace among the members, so a remote schemaLocation hint is never needed
    locations = [
        (s.target_namespace, (directory / name).as_uri())
        for name, s in scans.items()
        if s.root == f"{XSD_NS} schema" and s.target_namespace and name != main
    ]
    schema = _build(
        str(directory / main),
        xsd11=xsd11,
        allow="sandbox",
        base_url=str(directory),
        locations=locations,
        confine=directory,
    )
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
        globals_ = [
            e
            for e in self.schema.maps.elements.values()
            if (e.target_namespace or "") not in _SKIP_NAMESPACES
        ]
        for element in globals_:
            ns = element.target_namespace or ""
            name = element.local_name if ns == target else (element.prefixed_name or element.name)
            self.roots.append(name)
            self._elements[name] = element
        if not self.roots:
            raise SchemaError("The XSD declares no global element, so it has no record root.")
        if all(self._elements[n].abstract for n in self.roots):
            # a substitution group member would itself be a global element, and concrete: so no
            # element of this schema can be a document's root (a library for other schemas)
            names = ", ".join(self.roots[:10]) + (", ..." if len(self.roots) > 10 else "")
            raise SchemaError(
                f"The XSD's global elements are all abstract ({names}) and none has a concrete "
                "substitute, so no document can have a root; it is a library for other schemas."
            )
        used = _referenced_globals(globals_)
        candidates = [n for n in self.roots if id(self._elements[n]) not in used] or self.roots
        if all(self._elements[n].abstract for n in candidates):
            # an abstract element has no instances: prefer any concrete global element
            candidates = [n for n in self.roots if not self._elements[n].abstract] or candidates
        # a record of the schema's own namespace first (SAML's, not the xmldsig one it imports)
        complex_first = sorted(
            candidates,
            key=lambda n: (
                self._elements[n].abstract,
                (self._elements[n].target_namespace or "") != target,
                not self._elements[n].type.is_complex(),
            ),
        )
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
            return XsdTreeBuilder().build(self._elements[root], root)
        except RecursionError:
            raise SchemaError("The XSD is nested too deeply to be modelled.") from None

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
