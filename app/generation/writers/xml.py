"""XML writer. (design notes: docs/generation.md)"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

import numpy as np

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj, take
from app.generation.engine.generators import Gen, distinct_generators
from app.generation.engine.objects import ObjectGen
from app.generation.writers.interleave import interleave

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
XML_NS = "http://www.w3.org/XML/1998/namespace"
CONTAINER = "records"
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TEXT_SPECIAL = re.compile("[&<>\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ATTR_SPECIAL = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_NAME_BAD = re.compile(
    r"[^A-Za-z0-9_.\-\u00b7\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u037d\u037f-\u1fff\u2070-\u218f]"
)


def _escape_text(s: str) -> str:
    s = _ILLEGAL.sub("", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attr(s: str) -> str:
    s = _ILLEGAL.sub("", s)
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\t", "&#9;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
    )


# the ASCII bytes _TEXT_SPECIAL / _ATTR_SPECIAL match
_TEXT_SPECIAL_ASCII = b"&<>" + bytes([*range(9), 11, 12, *range(14, 32)])
_ATTR_SPECIAL_ASCII = _TEXT_SPECIAL_ASCII + b'"\t\n\r'


def _escape_column(values: list[str], attr: bool) -> list[str]:
    special = _ATTR_SPECIAL if attr else _TEXT_SPECIAL
    blob = "".join(values)
    if blob.isascii():  # O(1) in CPython; one byte-table pass decides for the whole column
        raw = blob.encode("ascii")
        if len(raw.translate(None, _ATTR_SPECIAL_ASCII if attr else _TEXT_SPECIAL_ASCII)) == len(raw):
            return values
    # isprintable() is one C pass (false for controls and surrogates); then three substring tests
    elif (
        blob.isprintable()
        and "&" not in blob
        and "<" not in blob
        and ">" not in blob
        and (not attr or '"' not in blob)
    ):
        return values
    if not special.search(blob):
        return values
    esc = _escape_attr if attr else _escape_text
    return [esc(v) if special.search(v) else v for v in values]


# an element's text for every row: constant strings and columns of per-row text, in order
Segments = list[str | list[str]]


def _pieces(segments: Segments) -> tuple[list[str], list[list[str]]]:
    """`interleave`'s pieces and columns from segments (adjacent constants joined)."""
    pieces, columns = [""], []
    for s in segments:
        if isinstance(s, str):
            pieces[-1] += s
        else:
            columns.append(s)
            pieces.append("")
    return pieces, columns


def xml_name(key: str) -> str:
    name = _NAME_BAD.sub("_", key) or "_"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    return name


def _local(name: str) -> str:
    """`xml:lang` -> `lang`; the prefix is chosen by the writer, never taken from the model."""
    return name.rsplit(":", 1)[-1]


def _has_nullable(gen: Gen) -> bool:
    """Whether any value of the tree may be nil."""
    return any(
        getattr(g, "null_rate", 0) > 0 or getattr(g, "always_null", False) for g in distinct_generators(gen)
    )


class XmlWriter:
    def __init__(self, gen: Gen, *, xsd: bool, root_name: str) -> None:
        self.gen = gen
        self.xsd = xsd
        self.root_tag = root_name if xsd else "record"
        self.nil_decl = f' xmlns:xsi="{XSI_NS}"' if _has_nullable(gen) else ""

    # -- document --------------------------------------------------------------------------

    def header(self) -> bytes:
        return f'<?xml version="1.0" encoding="UTF-8"?>\n<{CONTAINER}>\n'.encode()

    def footer(self) -> bytes:
        return f"</{CONTAINER}>\n".encode()

    def records(self, col: Column) -> list[str]:
        """One self-contained XML element per record (namespaces declared on it)."""
        return self._element(self.gen, col, self.root_tag, parent_ns="", root=True)

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        segments = self._template(self.gen, col, self.root_tag, "", root=True)
        if segments is None:
            return ("\n".join(self.records(col)) + "\n").encode()
        pieces, columns = _pieces([*segments, "\n"])
        return interleave(pieces, columns, col.n)

    # -- one template per record: the same text as `records`, in one C pass ----------------

    def _template(
        self, gen: Gen, col: Column, tag: str, parent_ns: str, root: bool = False
    ) -> Segments | None:
        """The element `tag` of every row of an object column as segments (constant text, or a
        column of per-row text) whose concatenation is `_element`'s text for every row: always
        present scalar children and nested objects are written inline around their values, the
        rest (optional, nil, repeated or choice content) as columns `_element` renders. None
        when the element may be nil or self-closing in some row (`_element` writes those)."""
        if not isinstance(gen, ObjectGen) or not isinstance(col, Obj):
            return None
        nulls = col.nulls
        if nulls is not None and nulls.any():
            return None
        ns = self._ns(gen) if self.xsd else ""
        tag = _local(tag) if self.xsd else xml_name(tag)
        attrs, body = self._content_segments(gen, col, ns)
        if body is None or not any(isinstance(s, str) for s in body):
            return None  # a row may have no content (self-closing): `_element` decides per row
        return [self._open(tag, ns, parent_ns, root), *attrs, ">", *body, f"</{tag}>"]

    def _content_segments(self, gen: ObjectGen, col: Obj, ns: str) -> tuple[Segments, Segments | None]:
        """`_content`'s attribute text and child content as segments (see `_template`)."""
        attrs: Segments = []
        body: Segments = []
        attr_prefixes: dict[str, str] = {}
        for slot, f, present in zip(gen.slots, col.fields, col.present, strict=True):
            if slot.gen is None or f is None:
                continue
            whole = present is None or bool(present.all())
            info = slot.gen.node.xml if self.xsd else None
            if info is not None and info.attribute:
                texts = self._scalar_texts(slot.gen, f)
                name = _local(slot.name.lstrip("@"))
                if info.namespace == XML_NS:
                    name = f"xml:{name}"
                elif info.namespace:
                    name = f"{attr_prefixes.setdefault(info.namespace, f'a{len(attr_prefixes)}')}:{name}"
                esc = _escape_column(["" if t is None else t for t in texts], attr=True)
                if whole and None not in texts:
                    attrs += [f' {name}="', esc, '"']
                else:
                    frag = [
                        f' {name}="{e}"' if t is not None else "" for e, t in zip(esc, texts, strict=True)
                    ]
                    attrs.append(self._mask(frag, present))
            elif info is not None and info.text:
                texts = self._scalar_texts(slot.gen, f)
                body.append(
                    self._mask(_escape_column(["" if t is None else t for t in texts], False), present)
                )
            elif slot.name == "" or (isinstance(slot.gen, (ObjectGen, ChoiceGen)) and slot.gen.name == ""):
                body.append(self._rendered(lambda g, c: self._group_content(g, c, ns), slot.gen, f, present))
            else:
                body += self._child_segments(slot.gen, f, slot.name, ns, present, whole)
        if attr_prefixes:
            attrs.append("".join(f' xmlns:{p}="{_escape_attr(ns)}"' for ns, p in attr_prefixes.items()))
        return attrs, body

    def _child_segments(
        self, gen: Gen, col: Column, name: str, ns: str, present: np.ndarray | None, whole: bool
    ) -> Segments:
        """A child element of every row as segments: inline when in every row and never nil."""
        if whole and isinstance(gen, ObjectGen):
            inner = self._template(gen, col, name, ns)
            if inner is not None:
                return inner
        elif whole and not isinstance(gen, (ArrayGen, ChoiceGen)):
            texts = self._scalar_texts(gen, col)
            if None not in texts:
                tag = _local(name) if self.xsd else xml_name(name)
                child_ns = self._ns(gen) if self.xsd else ""
                esc = _escape_column(cast("list[str]", texts), attr=False)  # no None: checked
                return [self._open(tag, child_ns, ns, False) + ">", esc, f"</{tag}>"]

        def render(g: Gen, c: Column, tag: str = name) -> list[str]:
            return self._element(g, c, tag, ns)

        return [self._rendered(render, gen, col, present)]

    # -- rendering -------------------------------------------------------------------------

    def _ns(self, gen: Gen) -> str:
        if not self.xsd:
            return ""
        xml = getattr(gen.node, "xml", None)
        return (xml.namespace or "") if xml is not None else ""

    def _open(self, tag: str, ns: str, parent_ns: str, root: bool) -> str:
        decl = f' xmlns="{_escape_attr(ns)}"' if ns != parent_ns else ""
        return f"<{tag}{decl}{self.nil_decl if root else ''}"

    def _nil(self, tag: str, ns: str, parent_ns: str, root: bool) -> str:
        return self._open(tag, ns, parent_ns, root) + ' xsi:nil="true"/>'

    def _scalar_texts(self, gen: Gen, col: Column) -> list[str | None]:
        if isinstance(col, Leaf):
            return col.text()
        if isinstance(gen, ArrayGen) and isinstance(col, Arr) and gen.item is not None:
            # an XSD list value (e.g. NMTOKENS in an attribute): items separated by spaces
            items = [] if col.item is None else self._scalar_texts(gen.item, col.item)
            off = col.offsets.tolist()
            texts: list[str | None] = [
                " ".join(t or "" for t in items[off[i] : off[i + 1]]) for i in range(col.n)
            ]
            if col.nulls is not None:
                for i in np.flatnonzero(col.nulls).tolist():
                    texts[i] = None
            return texts
        vals = gen.py(col)
        import orjson

        return [None if v is None else v if isinstance(v, str) else orjson.dumps(v).decode() for v in vals]

    def _element(self, gen: Gen, col: Column, tag: str, parent_ns: str, root: bool = False) -> list[str]:
        """The element `tag` for every row of `col`."""
        n = col.n
        ns = self._ns(gen) if self.xsd else ""
        tag = _local(tag) if self.xsd else xml_name(tag)
        if isinstance(gen, ObjectGen):
            assert isinstance(col, Obj)
            attrs, body = self._content(gen, col, ns)
            opening = self._open(tag, ns, parent_ns, root)
            out = [
                f"{opening}{a}>{b}</{tag}>" if b else f"{opening}{a}/>"
                for a, b in zip(attrs, body, strict=True)
            ]
        elif isinstance(gen, ArrayGen) and (
            not self.xsd or gen.node.xml is None or not gen.node.xml.list_value
        ):
            assert isinstance(col, Arr)
            if self.xsd:
                # a repeated element: the item elements themselves, side by side
                out = self._repeated(gen, col, tag, parent_ns, root)
            else:
                items = self._items(gen, col, "item", ns)
                opening = self._open(tag, ns, parent_ns, root)
                out = [f"{opening}>{b}</{tag}>" if b else f"{opening}/>" for b in items]
        elif isinstance(gen, ArrayGen):
            assert isinstance(col, Arr)
            lists = self._list_texts(gen, col)
            opening = self._open(tag, ns, parent_ns, root)
            out = [f"{opening}>{t}</{tag}>" for t in lists]
        elif isinstance(gen, ChoiceGen):
            assert isinstance(col, Choice)
            out = [""] * n
            for k, opt in enumerate(gen.options):
                sub = col.cols[k]
                if opt is None or sub is None:
                    continue
                frags = self._element(opt, sub, tag, parent_ns, root)
                for i, f in zip(col.rows(k).tolist(), frags, strict=True):
                    out[i] = f
        else:
            texts = self._scalar_texts(gen, col)
            esc = _escape_column(["" if t is None else t for t in texts], attr=False)
            opening = self._open(tag, ns, parent_ns, root)
            out = [f"{opening}>{e}</{tag}>" if t is not None else "" for t, e in zip(texts, esc, strict=True)]
            for i, t in enumerate(texts):
                if t is None:
                    out[i] = self._nil(tag, ns, parent_ns, root)
            return out
        nulls = getattr(col, "nulls", None)
        if nulls is not None:
            for i in np.flatnonzero(nulls).tolist():
                out[i] = self._nil(tag, ns, parent_ns, root)
        return out

    def _repeated(self, gen: ArrayGen, col: Arr, tag: str, parent_ns: str, root: bool) -> list[str]:
        if col.item is None:
            return [""] * col.n
        item_gen = gen.item
        assert item_gen is not None and not gen.prefix
        if isinstance(item_gen, (ObjectGen, ChoiceGen)) and item_gen.name == "":
            attrs_body = self._group_content(item_gen, col.item, parent_ns)
            frags = attrs_body
        else:
            frags = self._element(item_gen, col.item, tag, parent_ns, root)
        off = col.offsets.tolist()
        return ["".join(frags[off[i] : off[i + 1]]) for i in range(col.n)]

    def _items(self, gen: ArrayGen, col: Arr, tag: str, parent_ns: str) -> list[str]:
        if col.item is None:
            return [""] * col.n
        if gen.prefix:
            gens = [*gen.prefix, *([gen.item] if gen.item is not None else [])]
            choice = col.item
            assert isinstance(choice, Choice)
            frags = [""] * choice.n
            for k, g in enumerate(gens):
                sub = choice.cols[k]
                if sub is not None:
                    for i, f in zip(
                        choice.rows(k).tolist(), self._element(g, sub, tag, parent_ns), strict=True
                    ):
                        frags[i] = f
        else:
            assert gen.item is not None
            frags = self._element(gen.item, col.item, tag, parent_ns)
        off = col.offsets.tolist()
        return ["".join(frags[off[i] : off[i + 1]]) for i in range(col.n)]

    def _list_texts(self, gen: ArrayGen, col: Arr) -> list[str]:
        if col.item is None or gen.item is None:
            return [""] * col.n
        texts = _escape_column(
            ["" if t is None else t for t in self._scalar_texts(gen.item, col.item)], attr=False
        )
        off = col.offsets.tolist()
        return [" ".join(texts[off[i] : off[i + 1]]) for i in range(col.n)]

    def _group_content(self, gen: Gen, col: Column, parent_ns: str) -> list[str]:
        """Child elements of an anonymous group (spliced into the enclosing element)."""
        if isinstance(gen, ObjectGen):
            assert isinstance(col, Obj)
            _attrs, body = self._content(gen, col, parent_ns)
            return body
        if isinstance(gen, ChoiceGen):
            assert isinstance(col, Choice)
            out = [""] * col.n
            for k, opt in enumerate(gen.options):
                sub = col.cols[k]
                if opt is None or sub is None:
                    continue
                frags = self._child(opt, sub, parent_ns)
                for i, f in zip(col.rows(k).tolist(), frags, strict=True):
                    out[i] = f
            return out
        if isinstance(gen, ArrayGen):
            assert isinstance(col, Arr)
            if col.item is None or gen.item is None:
                return [""] * col.n
            frags = self._child(gen.item, col.item, parent_ns)
            off = col.offsets.tolist()
            return ["".join(frags[off[i] : off[i + 1]]) for i in range(col.n)]
        raise TypeError(f"unexpected group generator {type(gen).__name__}")

    def _child(self, gen: Gen, col: Column, parent_ns: str) -> list[str]:
        if gen.name == "" and isinstance(gen, (ObjectGen, ChoiceGen, ArrayGen)):
            return self._group_content(gen, col, parent_ns)
        return self._element(gen, col, gen.name, parent_ns)

    def _content(self, gen: ObjectGen, col: Obj, ns: str) -> tuple[list[str], list[str]]:
        """(attribute text, child content) of an object element for every row."""
        n = col.n
        attr_parts: list[list[str]] = []
        body_parts: list[list[str]] = []
        attr_prefixes: dict[str, str] = {}
        for slot, f, present in zip(gen.slots, col.fields, col.present, strict=True):
            if slot.gen is None or f is None:
                continue
            info = slot.gen.node.xml if self.xsd else None
            if info is not None and info.attribute:
                texts = self._scalar_texts(slot.gen, f)
                esc = _escape_column(["" if t is None else t for t in texts], attr=True)
                name = _local(slot.name.lstrip("@"))
                if info.namespace == XML_NS:
                    frag = [f' xml:{name}="{e}"' for e in esc]
                elif info.namespace:
                    # one prefix per attribute namespace, declared once on the element (below)
                    prefix = attr_prefixes.setdefault(info.namespace, f"a{len(attr_prefixes)}")
                    frag = [f' {prefix}:{name}="{e}"' for e in esc]
                else:
                    frag = [f' {name}="{e}"' for e in esc]
                frag = [fr if t is not None else "" for fr, t in zip(frag, texts, strict=True)]
                attr_parts.append(self._mask(frag, present))
            elif info is not None and info.text:
                texts = self._scalar_texts(slot.gen, f)
                body_parts.append(
                    self._mask(_escape_column(["" if t is None else t for t in texts], False), present)
                )
            elif slot.name == "" or (isinstance(slot.gen, (ObjectGen, ChoiceGen)) and slot.gen.name == ""):
                body_parts.append(
                    self._rendered(lambda g, c: self._group_content(g, c, ns), slot.gen, f, present)
                )
            else:

                def render(g: Gen, c: Column, tag: str = slot.name) -> list[str]:
                    return self._element(g, c, tag, ns)

                body_parts.append(self._rendered(render, slot.gen, f, present))
        if attr_prefixes:
            decls = "".join(f' xmlns:{p}="{_escape_attr(ns)}"' for ns, p in attr_prefixes.items())
            attr_parts.append([decls] * n)
        attrs = ["".join(p) for p in zip(*attr_parts, strict=True)] if attr_parts else [""] * n
        body = ["".join(p) for p in zip(*body_parts, strict=True)] if body_parts else [""] * n
        return attrs, body

    def _rendered(
        self,
        render: Callable[[Gen, Column], list[str]],
        gen: Gen,
        col: Column,
        present: np.ndarray | None,
    ) -> list[str]:
        """A child's fragments for every row, "" where absent. A child absent from most rows
        (the optional content of a large record) is rendered for its present rows only."""
        if present is None or col.n < 8:
            return self._mask(render(gen, col), present)
        idx = np.flatnonzero(present)
        if idx.size * 2 > col.n:
            return self._mask(render(gen, col), present)
        out = [""] * col.n
        if idx.size:
            for i, frag in zip(idx.tolist(), render(gen, take(col, idx)), strict=True):
                out[i] = frag
        return out

    @staticmethod
    def _mask(frags: list[str], present: np.ndarray | None) -> list[str]:
        if present is None or present.all():
            return frags
        return [f if p else "" for f, p in zip(frags, present.tolist(), strict=True)]
