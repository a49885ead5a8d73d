"""Hostile inputs drawn from a seed, for the tests that send them through every door: corrupt zip
archives, text in broken or foreign encodings, regex quantifiers and lengths far past the limit,
deep nesting. Each case is a named byte string (or text), so a failure names what was sent and the
seed reproduces the whole set (TDG_HOSTILE_SEED=<seed>). Valid inputs are built first and then
broken one way each, so every case is close to something the service accepts."""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
import zlib
from dataclasses import dataclass

from app.generation.limits import MAX_FIELD_CHARS

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'
MAIN_XSD = (f'<xs:schema {XS}><xs:include schemaLocation="types.xsd"/>'
            '<xs:element name="item"><xs:complexType><xs:sequence><xs:element name="code" type="Code"/>'
            "</xs:sequence></xs:complexType></xs:element></xs:schema>").encode()
TYPES_XSD = (f'<xs:schema {XS}><xs:simpleType name="Code"><xs:restriction base="xs:string">'
             '<xs:pattern value="[A-Z]{3}"/></xs:restriction></xs:simpleType></xs:schema>').encode()
# a JSON Schema with text beyond ASCII (so that every re-encoding changes its bytes)
CAFE_JSON = '{"type": "object", "title": "café, naïve \u2013 ok", "properties": {"a": {"type": "string"}}}'
CAFE_XSD = f'<xs:schema {XS}><xs:element name="café" type="xs:string"/></xs:schema>'


@dataclass(frozen=True)
class Hostile:
    """One input: what it is (for failure messages), its bytes, the file name it is sent as, and
    whether the service must refuse it (a random change may leave an archive readable, and a deep
    but legal document may be accepted: those must only never fail the server)."""

    name: str
    content: bytes
    filename: str
    must_refuse: bool = True


def seed_of_run() -> int:
    """TDG_HOSTILE_SEED when set (to reproduce a failure), else a new seed each run."""
    return int(os.environ.get("TDG_HOSTILE_SEED") or random.SystemRandom().randrange(1 << 32))


def zip_bundle(method: int = zipfile.ZIP_DEFLATED, members: dict[str, bytes] | None = None) -> bytes:
    """A valid two-file XSD bundle (main.xsd including types.xsd)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, blob in (members or {"main.xsd": MAIN_XSD, "types.xsd": TYPES_XSD}).items():
            zf.writestr(name, blob)
    return buf.getvalue()


def _central(data: bytearray, nth: int = 0) -> int:
    """Offset of the nth central-directory header."""
    at = -1
    for _ in range(nth + 1):
        at = data.index(b"PK\x01\x02", at + 1)
    return at


def _patch_both(data: bytearray, local_at: int, central_at: int, value: bytes) -> bytearray:
    """The same field of the first member in its local header (at local_at) and its central
    directory entry (at central_at), so zipfile's consistency checks pass and the member is read."""
    data[local_at : local_at + len(value)] = value
    cd = _central(data)
    data[cd + central_at : cd + central_at + len(value)] = value
    return data


def corrupt_archives(rng: random.Random, flips: int) -> list[Hostile]:
    """The named ways an archive is damaged, plus `flips` bundles with random bytes changed."""
    good = zip_bundle()
    size = len(MAIN_XSD)
    cases: dict[str, bytes] = {}
    bad_crc = bytearray(good)
    crc = bytes(bad_crc[14:18])
    cases["bad CRC-32"] = bytes(_patch_both(bad_crc, 14, 16, bytes(b ^ 0x5A for b in crc)))
    deflate = bytearray(good)
    body = 30 + len("main.xsd")
    for i in range(body + 2, body + 12):
        deflate[i] ^= rng.randrange(1, 256)
    cases["corrupt deflate stream"] = bytes(deflate)
    cases["deflate64 (method 9)"] = bytes(_patch_both(bytearray(good), 8, 10, struct.pack("<H", 9)))
    cases["AES (method 99)"] = bytes(_patch_both(bytearray(good), 8, 10, struct.pack("<H", 99)))
    cases["size declared larger"] = bytes(_patch_both(bytearray(good), 22, 24, struct.pack("<I", size + 100)))
    cases["size declared smaller"] = bytes(_patch_both(bytearray(good), 22, 24, struct.pack("<I", size - 40)))
    encrypted = bytearray(good)
    encrypted[6] |= 1
    encrypted[_central(encrypted) + 8] |= 1
    cases["encrypted member"] = bytes(encrypted)
    strong = bytearray(good)
    strong[6] |= 0x40
    strong[_central(strong) + 8] |= 0x40
    cases["strong encryption flag"] = bytes(strong)
    cases["truncated central directory"] = good[: len(good) - rng.randint(5, 30)]
    cases["truncated in a member"] = good[: rng.randint(40, 120)]
    cases["stored, not deflated, corrupt"] = _flip_member(zip_bundle(zipfile.ZIP_STORED), rng)
    cases["bzip2 corrupt"] = _flip_member(zip_bundle(zipfile.ZIP_BZIP2), rng)
    cases["lzma corrupt"] = _flip_member(zip_bundle(zipfile.ZIP_LZMA), rng)
    cases["zip bomb (11 MiB of zeros)"] = zip_bundle(members={"main.xsd": MAIN_XSD, "pad.xsd": bytes(11 << 20)})
    lying = bytearray(zip_bundle(members={"main.xsd": MAIN_XSD, "pad.xsd": bytes(4 << 20)}))
    cd = _central(lying, 1)  # the padding member declares 1 KiB and inflates to 4 MiB
    lying[cd + 24 : cd + 28] = struct.pack("<I", 1024)
    local = lying.index(b"PK\x03\x04", 1)
    lying[local + 22 : local + 26] = struct.pack("<I", 1024)
    cases["bomb lying about its size"] = bytes(lying)
    cases["a name twice"] = zip_bundle(members={"main.xsd": MAIN_XSD, "./main.xsd": MAIN_XSD})
    cases["a file and a folder of one name"] = zip_bundle(
        members={"main.xsd": MAIN_XSD, "types.xsd": TYPES_XSD, "main.xsd/x.xsd": TYPES_XSD})
    cases["a 300-character name"] = zip_bundle(members={"x" * 296 + ".xsd": MAIN_XSD})
    cases["parent path"] = zip_bundle(members={"../main.xsd": MAIN_XSD})
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as zf:  # writestr takes an empty name only as a ZipInfo
        zf.writestr("main.xsd", MAIN_XSD)
        zf.writestr(zipfile.ZipInfo(""), TYPES_XSD)
    cases["an empty name"] = empty.getvalue()  # the loader's ZipInfo.is_dir() raised IndexError
    cases["UTF-16 member"] = zip_bundle(members={"main.xsd": CAFE_XSD.encode("utf-16")})
    cases["magic only"] = b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
    for i in range(flips):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(4, len(data))] = rng.randrange(256)
        cases[f"random bytes changed #{i}"] = bytes(data)
    return [Hostile(f"zip: {name}", blob, "bundle.zip", not name.startswith("random")) for name, blob in cases.items()]


def _flip_member(archive: bytes, rng: random.Random) -> bytes:
    data = bytearray(archive)
    start = 30 + len("main.xsd")
    for _ in range(6):
        data[rng.randrange(start, start + 40)] ^= rng.randrange(1, 256)
    return bytes(data)


def broken_encodings(rng: random.Random) -> list[Hostile]:
    """Schema text in encodings the service does not read, and JSON escapes with no UTF-8 form."""
    surrogate = rng.choice(["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud83d"])
    where = rng.choice([
        '{"type": "object", "properties": {"a": {"type": "string", "title": "x%s"}}}',
        '{"type": "object", "required": ["a"], "properties": {"a": {"enum": ["%s"]}}}',
        '{"type": "object", "properties": {"%s": {"type": "string"}}}',
        '{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^%s$"}}}',
        '{"type": "object", "required": ["a"], "properties": {"a": {"const": "%s"}}}',
    ])
    cases = {
        "UTF-16-LE without BOM": CAFE_JSON.encode("utf-16-le"),
        "UTF-16-BE without BOM": CAFE_JSON.encode("utf-16-be"),
        "UTF-16 with BOM": CAFE_JSON.encode("utf-16"),
        "UTF-32": CAFE_JSON.encode("utf-32"),
        "Latin-1": CAFE_JSON.encode("latin-1", "replace"),
        "Windows-1252 XSD": CAFE_XSD.encode("cp1252"),
        "overlong UTF-8 (é as 3 bytes)": CAFE_JSON.encode().replace("é".encode(), b"\xe0\x83\xa9"),
        "overlong UTF-8 NUL": CAFE_JSON.encode().replace(b"caf", b"ca\xc0\x80f"),
        "CESU-8 surrogate bytes": CAFE_JSON.encode().replace("é".encode(), b"\xed\xa0\x80"),
        "truncated UTF-8 sequence": CAFE_JSON.encode().replace("é".encode(), b"\xc3"),
        "lone surrogate escape": (where % surrogate).encode(),
        "XML character reference to a surrogate": CAFE_XSD.replace("café", "caf&#xD800;").encode(),
        "NUL bytes": CAFE_JSON.encode().replace(b" ", b"\x00", rng.randint(1, 5)),
    }
    return [Hostile(f"encoding: {name}", blob, "schema.xsd" if b"xs:schema" in blob else "schema.json")
            for name, blob in cases.items()]


def oversized_patterns(rng: random.Random) -> list[str]:
    """Regexes whose shortest match is past MAX_FIELD_CHARS (quantifiers, nested repeats)."""
    n = rng.choice([MAX_FIELD_CHARS + 1, rng.randint(MAX_FIELD_CHARS + 2, 10**7), 3_000_000, 999_999_999])
    k = rng.randint(70, 5000)
    return [
        f"^[a-z]{{{n}}}$",
        f"^(ab){{{n}}}$",
        f"^((x{{{k}}}){{{k}}}){{{k}}}$",
        f"^\\d{{{n},}}$",
        f"^(?:[A-Z]{{2}}|[0-9]{{{n}}})[a-z]{{{MAX_FIELD_CHARS}}}$",
    ]


def oversized_schemas(rng: random.Random) -> list[Hostile]:
    """Small schemas asking one field for more than MAX_FIELD_CHARS characters per record."""
    n = rng.choice([MAX_FIELD_CHARS + 1, rng.randint(MAX_FIELD_CHARS + 2, 10**6), 999_999_999])
    items = rng.randint(MAX_FIELD_CHARS // 8 + 1, 10**9)

    def json_field(spec: str) -> str:
        return f'{{"type": "object", "required": ["a"], "properties": {{"a": {spec}}}}}'

    def xsd_field(body: str, base: str = "string") -> str:
        return (f'<xs:schema {XS}><xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a">'
                f'<xs:simpleType><xs:restriction base="xs:{base}">{body}</xs:restriction></xs:simpleType>'
                "</xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>")

    pattern = rng.choice(oversized_patterns(rng))
    cases = {
        "JSON pattern": json_field(f'{{"type": "string", "pattern": "{pattern.replace(chr(92), chr(92) * 2)}"}}'),
        "JSON minLength": json_field(f'{{"type": "string", "minLength": {n}}}'),
        "JSON minItems": json_field(f'{{"type": "array", "minItems": {items}, "items": {{"type": "integer"}}}}'),
        "JSON minProperties": json_field(f'{{"type": "object", "minProperties": {items}}}'),
        "JSON minContains": json_field(
            f'{{"type": "array", "contains": {{"const": 1}}, "minContains": {items}}}'),
        "JSON nested minItems": json_field(
            '{"type": "array", "minItems": 100, "items": {"type": "array", "minItems": 100, '
            '"items": {"type": "string", "minLength": 5}}}'),
        "XSD length": xsd_field(f'<xs:length value="{n}"/>'),
        "XSD minLength": xsd_field(f'<xs:minLength value="{n}"/>'),
        "XSD totalDigits": xsd_field(f'<xs:totalDigits value="{n}"/>', "decimal"),
        "XSD pattern": xsd_field(f'<xs:pattern value="\\d{{{n}}}"/>'),
        "XSD minOccurs": (f'<xs:schema {XS}><xs:element name="r"><xs:complexType><xs:sequence>'
                          f'<xs:element name="a" type="xs:int" minOccurs="{items}" maxOccurs="unbounded"/>'
                          "</xs:sequence></xs:complexType></xs:element></xs:schema>"),
    }
    return [Hostile(f"oversized: {name}", text.encode(), "s.xsd" if name.startswith("XSD") else "s.json")
            for name, text in cases.items()]


def deep_nesting(rng: random.Random) -> list[Hostile]:
    """Documents nested past any parser's recursion: JSON arrays and objects, XML elements, a regex."""
    depth = rng.randint(5_000, 100_000)
    xml_depth = rng.randint(300, 3_000)
    regex_depth = rng.randint(200, 2_000)
    cases = {
        "JSON arrays": "[" * depth + "]" * depth,
        "JSON objects": '{"a":' * depth + "1" + "}" * depth,
        "JSON schema properties": '{"type": "object", "properties": {"a": ' * (depth // 50) + "{}" + "}}" * (depth // 50),
        "XSD elements": (f'<xs:schema {XS}>' + '<xs:element name="e"><xs:complexType><xs:sequence>' * xml_depth
                         + "</xs:sequence></xs:complexType></xs:element>" * xml_depth + "</xs:schema>"),
        "regex groups": ('{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", '
                         f'"pattern": "{"(" * regex_depth}a{")" * regex_depth}"}}}}}}'),
    }
    return [Hostile(f"nesting: {name}", text.encode(), "s.xsd" if "XSD" in name else "s.json", False)
            for name, text in cases.items()]


def broken_images(rng: random.Random) -> list[Hostile]:
    """Image uploads that are not images, or damaged ones: a truncated PNG, a PNG claiming a huge
    canvas, random bytes behind a JPEG or WebP signature."""
    png = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
           + struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    png += struct.pack(">I", zlib.crc32(png[12:]) & 0xFFFFFFFF)
    huge = bytearray(png)
    huge[16:24] = struct.pack(">II", 100_000, 100_000)  # CRC left stale on purpose
    noise = bytes(rng.randrange(256) for _ in range(rng.randint(10, 4000)))
    cases = {
        "PNG header only": png,
        "PNG with a 100,000 x 100,000 canvas": bytes(huge) + noise[:100],
        "JPEG signature, noise": b"\xff\xd8\xff\xe0" + noise,
        "WebP signature, noise": b"RIFF" + struct.pack("<I", len(noise) + 4) + b"WEBP" + noise,
        "a zip": zip_bundle(),
    }
    return [Hostile(f"image: {name}", blob, "me.png") for name, blob in cases.items()]


def hostile_patterns(rng: random.Random) -> list[str]:
    """Rule patterns the service must refuse at the rule: past the field limit, nested deeper than
    `re` parses, constructs generation cannot honour, not compiling."""
    depth = rng.randint(600, 3000)
    return [*oversized_patterns(rng), "(" * depth + "a" + ")" * depth, "(a)\\1", "[z-a]", "a{2,1}"]


def schema_files(seed: int, flips: int = 8) -> list[Hostile]:
    """Every kind of hostile schema file, drawn from `seed`."""
    rng = random.Random(seed)
    return [*corrupt_archives(rng, flips), *broken_encodings(rng), *oversized_schemas(rng), *deep_nesting(rng)]


def search_texts(seed: int) -> list[str]:
    """`q` and filter values: past SQLite's 50,000-byte LIKE pattern, wildcards, escapes (each
    within a 64 KiB query string once percent-encoded)."""
    rng = random.Random(seed)
    return [
        "a" * 50_001,
        "%" * rng.randint(17_000, 21_000),
        "_%\\" * rng.randint(1, 5_000),
        "é" * rng.randint(8_400, 10_000),
        "".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(1, 200))),
    ]


def is_zip_of(data: bytes) -> bool:
    """Whether `data` is still a readable archive (a random change may leave it so)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return zf.testzip() is None
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, NotImplementedError):
        return False
