"""An XSD record as an element tree: parsed from the XML writer's text, its locations found by
a template of local names (`("policy", "holder", "@channel")`), written back as one line in the
writer's style (a default namespace declared where it changes, attribute namespaces prefixed)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from app.generation.writers.xml import XML_NS, XSI_NS

_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}
)
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})


def parse(text: str) -> ET.Element:
    """The record the XML writer wrote (its own output: no DTD, every `<` of a value escaped)."""
    return ET.fromstring(text)


def split(tag: str) -> tuple[str, str]:
    """(namespace, local name) of an ElementTree tag or attribute name."""
    got = _SPLIT.get(tag)
    if got is None:
        if tag.startswith("{"):
            ns, _, local = tag[1:].partition("}")
            got = (ns, local)
        else:
            got = ("", tag)
        if len(_SPLIT) < _MAX_NAMES:
            _SPLIT[tag] = got
    return got


_SPLIT: dict[str, tuple[str, str]] = {}  # a schema's few names, split once (write splits every tag)
_MAX_NAMES = 10_000


def write(root: ET.Element) -> str:
    """The record as the XML writer would write it, on one line."""
    out: list[str] = []
    _write(root, "", out, True)
    return "".join(out)


def _write(el: ET.Element, parent_ns: str, out: list[str], root: bool) -> None:
    ns, local = split(el.tag)
    start = f'<{local} xmlns="{ns.translate(_ATTR_ESCAPES)}"' if ns != parent_ns or (root and ns) else "<" + local
    if el.attrib:
        start += _attributes(el.attrib)
    text = el.text
    if not text and not len(el):
        out.append(start + "/>")
    else:
        out.append(f"{start}>{text.translate(_TEXT_ESCAPES)}" if text else start + ">")
        for child in el:
            _write(child, ns, out, False)
        out.append(f"</{local}>")
    if el.tail and not root:
        out.append(el.tail.translate(_TEXT_ESCAPES))


def _attributes(attrib: dict[str, str]) -> str:
    """The attributes' text, then the declarations of the prefixes they use (xml: is predeclared)."""
    attrs: list[str] = []
    prefixes: dict[str, str] = {}
    for name, value in attrib.items():
        ans, alocal = split(name)
        if ans == XML_NS:
            qname = f"xml:{alocal}"
        elif ans == XSI_NS:
            prefixes[XSI_NS] = "xsi"
            qname = f"xsi:{alocal}"
        elif ans:
            prefix = prefixes.setdefault(ans, f"a{len(prefixes)}")
            qname = f"{prefix}:{alocal}"
        else:
            qname = alocal
        attrs.append(f' {qname}="{value.translate(_ATTR_ESCAPES)}"')
    decls = "".join(f' xmlns:{p}="{n.translate(_ATTR_ESCAPES)}"' for n, p in prefixes.items())
    return decls + "".join(attrs)


@dataclass(frozen=True)
class Place:
    """A concrete location: the elements from the root down (`chain`) and, for an attribute,
    its name (`attribute`, as ElementTree names it)."""

    chain: tuple[ET.Element, ...]
    attribute: str | None = None

    @property
    def element(self) -> ET.Element:
        return self.chain[-1]

    def names(self) -> str:
        """The location path of local names without positions: `/policy/holder/@id`."""
        path = "".join("/" + split(e.tag)[1] for e in self.chain)
        return path + (f"/@{split(self.attribute)[1]}" if self.attribute else "")


def places(root: ET.Element, template: tuple[str, ...]) -> list[Place]:
    """Every location of `root` the template (local names from the record root; an attribute as
    `@name`, last) matches, in document order."""
    if not template or split(root.tag)[1] != template[0]:
        return []
    found: list[Place] = []
    frontier: list[tuple[ET.Element, ...]] = [(root,)]
    for step in template[1:]:
        if step.startswith("@"):
            want = step[1:]
            for chain in frontier:
                name = next((a for a in chain[-1].attrib if split(a)[1] == want), None)
                if name is not None:
                    found.append(Place(chain, name))
            return found
        frontier = [(*chain, c) for chain in frontier for c in chain[-1] if split(c.tag)[1] == step]
    return [Place(chain) for chain in frontier]
