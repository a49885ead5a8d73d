"""Where the tests find the shared inputs: `../shared` beside the repository when present
(CI and developer machines), else the copies under tests/fixtures."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
_SHARED = REPO.parent / "shared"

BENCH = _SHARED / "bench" if (_SHARED / "bench" / "customer_order.xsd").exists() else FIXTURES / "bench"
SPEC = (_SHARED / "spec" / "interface.md") if (_SHARED / "spec" / "interface.md").exists() \
    else FIXTURES / "spec" / "interface.md"
