"""The browser places a server error by its `field` and `code` (issue 29 item 5), never by matching
the server's sentence: rewording a message must not move an error away from its form field. A scan
of web/src for the ways a sentence gets matched, checked against a sample that does."""

from __future__ import annotations

import re
from pathlib import Path

WEB_SRC = Path(__file__).resolve().parents[2] / "web" / "src"

# a regular expression tested against, or a string search in, a server sentence; the names are
# those web/src gives it (errorDetail(...), a GraphQL error's message)
SENTENCE = r"(?:detail|serverDetail|message|errorDetail\([^)]*\))"
MATCHING = (
    re.compile(rf"\.test\(\s*{SENTENCE}\s*\)"),
    re.compile(rf"\b{SENTENCE}\s*(?:\?\.|\.)\s*(?:includes|startsWith|endsWith|match|search)\("),
    re.compile(r"\bpattern\s*:\s*/"),  # a rule placing an error where its sentence matches
)


def sentence_matches(text: str) -> list[str]:
    return [m.group(0) for pattern in MATCHING for m in pattern.finditer(text)]


def test_the_scan_finds_sentence_matching() -> None:
    for sample in (
        "if (detail && /^Schema \\d+/.test(detail)) setFieldError(detail);",
        "const named = Object.keys(fields).find((key) => detail.includes(`'${key}'`));",
        "const RULES = [{ field: 'username', pattern: /username/i }];",
        "const asks = /one-time code/i.test(serverDetail);",
        "if (errorDetail(error)?.startsWith('Rule')) return;",
    ):
        assert sentence_matches(sample), sample
    for sample in (
        "if (errorField(result.error) === 'schema_id') setFieldError(detail);",
        "const found = /(?:^|\\.)rules\\.(\\d+)/.exec(field);",
        "const text = message.replace(/^Value error, /, '').trim();",
    ):
        assert not sentence_matches(sample), sample


def test_no_web_source_matches_server_sentences() -> None:
    sources = [p for p in WEB_SRC.rglob("*.ts*") if "gql" not in p.relative_to(WEB_SRC).parts]
    assert len(sources) > 50
    found = {str(p.relative_to(WEB_SRC)): hits for p in sources if (hits := sentence_matches(p.read_text()))}
    assert not found, f"place errors by extensions.field / extensions.code, not by their sentence: {found}"
