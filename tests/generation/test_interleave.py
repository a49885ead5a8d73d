"""The writers' final assembly step: the C extension and the pure-Python path give the same bytes."""

from __future__ import annotations

import itertools
import random
import shutil

import pytest

from app.generation.writers import interleave as mod

IMPLEMENTATIONS = [pytest.param(mod._interleave_py, id="python")]
GROUPS = [pytest.param(mod._join_groups_py, id="python")]
if mod._native is not None:
    IMPLEMENTATIONS.append(pytest.param(mod._native, id="native"))
    GROUPS.append(pytest.param(mod._native_groups, id="native"))

# ASCII, Latin-1, the BMP (CJK, U+2028) and beyond it (emoji): each a different str storage kind
ALPHABETS = ["abcXYZ019 ,\"'\\\n", "éüßÆ\xa0\x80", "中文字\u2028\u20ac", "😀𝄞\U0010fffd"]


def _expected(pieces: list[str], columns: list[list[str]], n: int) -> bytes:
    out = []
    for r in range(n):
        for j, col in enumerate(columns):
            out.append(pieces[j] + col[r])
        out.append(pieces[-1])
    return "".join(out).encode()


def _random_text(rng: random.Random) -> str:
    alphabet = "".join(rng.sample(ALPHABETS, rng.randint(1, len(ALPHABETS))))
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))


def test_the_extension_is_built_where_a_compiler_is() -> None:
    """The install builds it (setup.py); losing it silently would only show as a slower benchmark."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this machine: the pure-Python path is the one in use")
    assert mod.NATIVE and mod.interleave is mod._native and mod.join_groups is mod._native_groups


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_same_bytes_as_the_per_row_concatenation(impl) -> None:
    rng = random.Random(20261122)
    for _ in range(300):
        k, n = rng.randint(0, 6), rng.randint(0, 40)
        pieces = [_random_text(rng) for _ in range(k + 1)]
        columns = [[_random_text(rng) for _ in range(n)] for _ in range(k)]
        assert impl(pieces, columns, n) == _expected(pieces, columns, n)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_a_value_object_used_in_several_places(impl) -> None:
    shared = "ä" * 3  # non-ASCII: the UTF-8 form is cached on the object after its first use
    cols = [[shared, shared], [shared, "x"]]
    assert impl(["<", "|", ">\n"], cols, 2) == "<äää|äää>\n<äää|x>\n".encode()


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_bad_arguments_raise(impl) -> None:
    with pytest.raises(TypeError):
        impl(["", "\n"], [["a", None]], 2)
    with pytest.raises(TypeError):
        impl(["", "\n"], [["a", b"b"]], 2)
    with pytest.raises(ValueError, match="column 0"):
        impl(["", "\n"], [["a"]], 2)
    with pytest.raises(ValueError, match="one more piece"):
        impl(["", ",", "\n"], [["a"]], 1)
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form, as in str.encode
        impl(["", "\n"], [["a\ud800"]], 1)


def test_the_writers_use_it_and_keep_their_bytes() -> None:
    """A CSV and an NDJSON chunk equal the per-row text of the same records."""
    import csv
    import io
    import json

    from app.generation.plan import compile_plan
    from app.generation.schema.loader import load_schema

    schema = {"type": "object", "required": ["name", "n", "tags"], "additionalProperties": False,
              "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 20},
                             "n": {"type": "integer"},
                             "tags": {"type": "array", "items": {"enum": ["ä", "😀", "x,y", 'q"']}}}}
    plan = compile_plan(load_schema(json.dumps(schema).encode(), "s.json"), [], {"seed": 3}, record_count=500)
    records = plan.records()
    out = io.BytesIO()
    plan.write("ndjson", out)
    assert [json.loads(line) for line in out.getvalue().decode().splitlines()] == records
    out = io.BytesIO()
    plan.write("csv", out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue().decode(), newline="")))
    assert [r["name"] for r in rows] == [rec["name"] for rec in records]
    assert [json.loads(r["tags"]) for r in rows] == [rec["tags"] for rec in records]
    assert out.getvalue().count(b"\r\n") == 501


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_csv_modes(impl) -> None:
    rng = random.Random(7)
    cells = ['a,b', 'q"q', "l\nf", "c\rr", "plain", "ä,ö", "😀\"", "", None, ";", "x;y"]
    for delimiter in (",", ";", "\t"):
        for _ in range(100):
            k, n = rng.randint(1, 4), rng.randint(0, 20)
            modes = bytes(rng.choice((mod.EMPTY_NONE, mod.CSV_QUOTE)) for _ in range(k))
            columns = [[rng.choice(cells) for _ in range(n)] for _ in range(k)]
            pieces = ["", *[delimiter] * (k - 1), "\r\n"]
            expected = []
            for r in range(n):
                row = []
                for j in range(k):
                    v = columns[j][r] or ""
                    if modes[j] == mod.CSV_QUOTE and any(ch in v for ch in ('"', delimiter, "\r", "\n")):
                        v = '"' + v.replace('"', '""') + '"'
                    row.append(v)
                expected.append(delimiter.join(row) + "\r\n")
            assert impl(pieces, columns, n, modes, delimiter) == "".join(expected).encode()


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_bad_modes_raise(impl) -> None:
    with pytest.raises(TypeError):  # None only where a mode allows it
        impl(["", "\n"], [[None]], 1, bytes([mod.RAW]))
    with pytest.raises(ValueError, match="one mode per column"):
        impl(["", "\n"], [["a"]], 1, bytes([1, 1]))
    with pytest.raises(ValueError, match="modes are"):
        impl(["", "\n"], [["a"]], 1, bytes([9]))
    with pytest.raises(ValueError, match="ASCII delimiter"):
        impl(["", "\n"], [["a"]], 1, bytes([2]), "§")


@pytest.mark.parametrize("impl", GROUPS)
def test_join_groups_gives_each_rows_array(impl) -> None:
    rng = random.Random(99)
    for _ in range(300):
        k, n_rows = rng.randint(0, 4), rng.randint(0, 12)
        lengths = [rng.choice((0, 1, 1, 2, 5)) for _ in range(n_rows)]
        offsets = [0]
        for length in lengths:
            offsets.append(offsets[-1] + length)
        n_items = offsets[-1]
        pieces = ["{" + _random_text(rng), *[_random_text(rng) for _ in range(k - 1)], _random_text(rng) + "}"] \
            if k else ["{}"]
        columns = [[_random_text(rng) for _ in range(n_items)] for _ in range(k)]
        items = [pieces[0] + "".join(columns[j][i] + pieces[j + 1] for j in range(k)) for i in range(n_items)]
        expected = ["[" + ",".join(items[a:b]) + "]" for a, b in itertools.pairwise(offsets)]
        got = impl(pieces, columns, n_items, offsets)
        assert got == expected
        assert all(type(row) is str for row in got)


@pytest.mark.parametrize("impl", GROUPS)
def test_join_groups_bad_arguments_raise(impl) -> None:
    with pytest.raises(ValueError, match="offsets"):
        impl(["{", "}"], [["a", "b"]], 2, [0, 3])
    with pytest.raises(ValueError, match="offsets"):
        impl(["{", "}"], [["a", "b"]], 2, [0, 2, 1, 2])
    with pytest.raises(ValueError):
        impl(["{", "}"], [["a"]], 2, [0, 2])
    with pytest.raises(TypeError):
        impl(["{", "}"], [["a", 1]], 2, [0, 2])


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_json_modes_escape_as_orjson_does(impl) -> None:
    import orjson

    every_ascii = [chr(c) for c in range(128)]
    others = ["", "plain", 'q"uote', "back\\slash", "ä\nü", "\u2028\u2029", "\x7f\x80\x9f", "😀\t", "a" * 300 + "\x01"]
    strings = [*every_ascii, *others, "".join(every_ascii)]
    n = len(strings)
    nullable = [None if i % 3 == 0 else s for i, s in enumerate(strings)]
    numbers = [None if i % 4 == 0 else str(i) for i in range(n)]
    got = impl(["{", ",", ",", "}\n"], [strings, nullable, numbers], n,
               bytes([mod.JSON_STR, mod.JSON_STR, mod.NULL_NONE]))
    expected = "".join(
        "{" + orjson.dumps(s).decode() + "," + orjson.dumps(v).decode() + "," + ("null" if x is None else x) + "}\n"
        for s, v, x in zip(strings, nullable, numbers, strict=True)).encode()
    assert got == expected


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_optional_columns_write_the_prefix_and_value_only_where_present(impl) -> None:
    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(0, 30)
        present_a = bytes(rng.random() < 0.7 for _ in range(n))
        present_b = bytes(rng.random() < 0.5 for _ in range(n))
        # an absent row's value is never read: None there, even in RAW mode
        a = [_random_text(rng) if present_a[r] else None for r in range(n)]
        b = [rng.choice([None, _random_text(rng)]) if present_b[r] else 12345 for r in range(n)]
        c = [_random_text(rng) for _ in range(n)]
        got = impl(["{", "", "", "}\n"], [a, b, c], n, bytes([mod.RAW, mod.JSON_STR, mod.RAW]), ",",
                   [(',"a":', present_a), ("ä:", present_b), None])
        import orjson

        expected = "".join(
            "{" + (',"a":' + a[r] if present_a[r] else "")
            + ("ä:" + ("null" if b[r] is None else orjson.dumps(b[r]).decode()) if present_b[r] else "")
            + c[r] + "}\n" for r in range(n)).encode()
        assert got == expected
    with pytest.raises(ValueError, match="optional"):
        impl(["", "\n"], [["a"]], 1, None, ",", [("k", b"\x01\x01")])
    with pytest.raises(ValueError, match="optional"):
        impl(["", "\n"], [["a"]], 1, None, ",", [None, None])
