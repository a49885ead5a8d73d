"""A zip upload whose main schema sits in a sub-folder and imports a sibling folder (OASIS UBL's
maindoc/ + common/ layout) loads; anything outside the upload still cannot be read."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from app.generation.errors import GenerationError
from app.generation.schema.loader import load_schema

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'
COMMON = (
    f'<xs:schema {XS} targetNamespace="urn:common" elementFormDefault="qualified">'
    '<xs:element name="ID" type="xs:token"/></xs:schema>'
)


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


def _main(location: str) -> str:
    return (
        f'<xs:schema {XS} xmlns:c="urn:common" targetNamespace="urn:doc" elementFormDefault="qualified">'
        f'<xs:import namespace="urn:common" schemaLocation="{location}"/>'
        '<xs:element name="Invoice"><xs:complexType><xs:sequence><xs:element ref="c:ID"/>'
        "</xs:sequence></xs:complexType></xs:element></xs:schema>"
    )


def test_main_in_a_subfolder_imports_a_sibling_folder() -> None:
    content = _zip(
        {"ubl/maindoc/Invoice.xsd": _main("../common/Common.xsd"), "ubl/common/Common.xsd": COMMON}
    )
    loaded = load_schema(content, "ubl.zip")
    assert loaded.default_root == "Invoice"
    assert loaded.field_tree("Invoice").root.child("c:ID") is not None
    assert loaded.record_validator("Invoice").json_error({"c:ID": "A1"}) is None


@pytest.mark.parametrize("form", ["relative", "absolute", "file-uri"])
def test_a_schema_outside_the_upload_is_not_read(tmp_path: Path, form: str) -> None:
    # a valid schema for the imported namespace exists outside the upload: reading it would succeed
    outside = tmp_path / "outside.xsd"
    outside.write_text(COMMON, encoding="utf-8")
    location = {
        "relative": "../../" * 12 + str(outside).lstrip("/"),
        "absolute": str(outside),
        "file-uri": outside.as_uri(),
    }[form]
    content = _zip({"ubl/maindoc/main.xsd": _main(location), "ubl/common/Other.xsd": f"<xs:schema {XS}/>"})
    with pytest.raises(GenerationError, match=r"unknown element '\{urn:common\}ID'|outside the upload"):
        load_schema(content, "ubl.zip")
