"""`tdg generate` on a multi-file XSD (issue 18 class 9): includes and imports are read from the main
schema's own folder (or a folder given as the schema), never from above it."""

from __future__ import annotations

from pathlib import Path

import typer
import xmlschema
from typer.testing import CliRunner

from app.generation.cli import register

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'
MAIN = f"""<xs:schema {XS} xmlns:o="urn:orders" targetNamespace="urn:orders" elementFormDefault="qualified">
  <xs:include schemaLocation="types/common.xsd"/>
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="sku" type="o:Sku"/><xs:element name="qty" type="o:Qty"/>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"""
COMMON = f"""<xs:schema {XS} targetNamespace="urn:orders">
  <xs:simpleType name="Sku"><xs:restriction base="xs:string"><xs:pattern value="[A-Z]{{3}}-[0-9]{{4}}"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Qty"><xs:restriction base="xs:int"><xs:minInclusive value="1"/><xs:maxInclusive value="9"/></xs:restriction></xs:simpleType>
</xs:schema>"""


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command()
    def noop() -> None:  # a second command keeps `generate` a named sub-command
        pass

    return app


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "orders"
    (folder / "types").mkdir(parents=True)
    (folder / "main.xsd").write_text(MAIN)
    (folder / "types" / "common.xsd").write_text(COMMON)
    return folder


def _valid_orders(folder: Path, out: Path, count: int) -> None:
    schema = xmlschema.XMLSchema10(str(folder / "main.xsd"))
    records = list(xmlschema.XMLResource(str(out)).root)
    assert len(records) == count
    for record in records:
        schema.validate(record)


def test_main_schema_reads_its_sibling_includes(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "orders.xml"
    result = CliRunner().invoke(
        _app(), ["generate", str(folder / "main.xsd"), "-n", "20", "-f", "xml", "-o", str(out), "--seed", "1"]
    )
    assert result.exit_code == 0, result.output
    _valid_orders(folder, out, 20)


def test_folder_as_the_schema_argument(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "orders.xml"
    result = CliRunner().invoke(_app(), ["generate", str(folder), "-n", "15", "-f", "xml", "-o", str(out)])
    assert result.exit_code == 0, result.output
    _valid_orders(folder, out, 15)


def test_include_above_the_folder_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (tmp_path / "secret.xsd").write_text(COMMON)
    (folder / "main.xsd").write_text(MAIN.replace("types/common.xsd", "../secret.xsd"))
    result = CliRunner().invoke(
        _app(), ["generate", str(folder / "main.xsd"), "-n", "3", "-f", "xml", "-o", "-"]
    )
    assert result.exit_code == 2
    assert (
        "main.xsd includes or imports '../secret.xsd', which is outside the schema's folder orders/"
        in result.output
    )
    # a nested escape that climbs out through a subfolder is refused the same way
    (folder / "main.xsd").write_text(MAIN)
    (folder / "types" / "common.xsd").write_text(
        COMMON.replace("</xs:schema>", '<xs:include schemaLocation="../../secret.xsd"/></xs:schema>')
    )
    result = CliRunner().invoke(_app(), ["generate", str(folder), "-n", "3", "-f", "xml", "-o", "-"])
    assert (
        result.exit_code == 2 and "types/common.xsd includes or imports '../../secret.xsd'" in result.output
    )


def test_single_file_schemas_still_load_alone(tmp_path: Path) -> None:
    lone = tmp_path / "lone.xsd"
    lone.write_text(f'<xs:schema {XS}><xs:element name="a" type="xs:string"/></xs:schema>')
    (tmp_path / "broken.xsd").write_text("not xml at all")  # a neighbour that is never read
    result = CliRunner().invoke(_app(), ["generate", str(lone), "-n", "2", "-f", "xml", "-o", "-"])
    assert result.exit_code == 0, result.output
