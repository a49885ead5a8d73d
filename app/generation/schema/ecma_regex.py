"""ECMA-262 (JSON Schema) regular expressions translated to Python `re`, search (unanchored)
semantics kept. Where the dialects disagree (\\s, \\S, \\D, \\W, `.`) the translation matches only
what ECMA-262, Python `re` (jsonschema) and Rust's regex (jsonschema-rs) all accept, so a value
drawn from it validates in all of them."""

from __future__ import annotations

import re

from app.generation.caching import short_key_cache

# whitespace in all three dialects: ECMA's set without U+FEFF (Python's \\s refuses it)
_COMMON_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
# whitespace in any of them: ECMA's U+FEFF and Python's U+001C..U+001F and U+0085 added
_ANY_SPACE = _COMMON_SPACE + "\\ufeff\\x1c-\\x1f\\x85"
_OUTSIDE_CLASS = {
    "d": "[0-9]",
    "D": "\\D",  # Python's \\D also refuses other scripts' digits, which ECMA's admits
    "w": "[A-Za-z0-9_]",
    "W": "\\W",  # Python's \\W also refuses non-ASCII letters, which ECMA's admits
    "s": f"[{_COMMON_SPACE}]",
    "S": f"[^{_ANY_SPACE}]",
}
# inside a class the negated shorthands stay Python's (Unicode-aware, so never wider than ECMA's)
_INSIDE_CLASS = {"d": "0-9", "D": "\\D", "w": "A-Za-z0-9_", "W": "\\W", "s": _COMMON_SPACE, "S": "\\S"}
# inside a negated class (`[^\\s]`) a space of any dialect must stay out
_INSIDE_NEGATED_CLASS = {**_INSIDE_CLASS, "s": _ANY_SPACE}
_ECMA_LETTER_ESCAPES = set("dDwWsSbBfnrtv0cxukpP")


def _escape(pattern: str, i: int, in_class: bool, negated: bool = False) -> tuple[str, int]:
    """The translation of the escape starting at pattern[i] (a backslash), and the index after it."""
    n = len(pattern)
    if i + 1 >= n:
        raise ValueError("the pattern ends with a lone backslash")
    d = pattern[i + 1]
    i += 2
    table = (_INSIDE_NEGATED_CLASS if negated else _INSIDE_CLASS) if in_class else _OUTSIDE_CLASS
    if d in table:
        return table[d], i
    if d in "pP":
        raise ValueError("Unicode property escapes (\\p{...}) are not supported")
    if d == "c" and i < n and pattern[i].isascii() and pattern[i].isalpha():
        return f"\\x{ord(pattern[i]) % 32:02x}", i + 1
    if d == "u" and i < n and pattern[i] == "{":
        end = pattern.find("}", i)
        if end < 0:
            raise ValueError("unterminated \\u{...} escape")
        return f"\\U{int(pattern[i + 1 : end], 16):08x}", end + 1
    if d == "k" and i < n and pattern[i] == "<":
        end = pattern.find(">", i)
        if end < 0:
            raise ValueError("unterminated \\k<name> back-reference")
        return f"(?P={pattern[i + 1 : end]})", end + 1
    if d == "0" and not (i < n and pattern[i].isdigit()):
        return "\\x00", i
    if d == "b" and in_class:
        return "\\x08", i
    if d in "AZ":
        # not ECMA, but the validator users run (Python's re) reads them as anchors
        return "\\" + d, i
    if d.isascii() and d.isalpha() and d not in _ECMA_LETTER_ESCAPES:
        return d, i  # ECMA identity escape (\a is "a", not BEL as in Python)
    return "\\" + d, i


@short_key_cache(maxsize=4096)
def translate_ecma_pattern(pattern: str) -> str:
    """Translate an ECMA-262 regex to an equivalent Python `re` pattern (search semantics kept).

    Raises ValueError with a reason for constructs Python cannot express (\\p{...} escapes).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = negated = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            text, i = _escape(pattern, i, in_class, negated)
            out.append(text)
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append("]")
            elif c in "[&~|":
                out.append("\\" + c)  # avoid Python's nested-set/set-operation syntax
            else:
                out.append(c)
            i += 1
            continue
        if c == "[":
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
            elif pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
            else:
                in_class = True
                out.append("[")
                i += 1
                negated = i < n and pattern[i] == "^"
                if negated:
                    out.append("^")
                    i += 1
            continue
        if c == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif c == "$":
            out.append("\\Z")  # ECMA `$` is end of input; Python's also matches before a final \n
        elif c == "(" and pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(c)
        i += 1
    if in_class:
        raise ValueError("unterminated character class")
    translated = "".join(out)
    try:
        re.compile(translated)
    except re.error as exc:
        raise ValueError(f"the pattern does not compile: {exc}") from None
    except RecursionError:  # `re` parses groups recursively: ~500 nested ones exhaust the stack
        raise ValueError("the pattern is nested too deeply") from None
    return translated
