"""`params.xml_layout` "documents" on the service (issue 32 item 4): a dataset's XML is a zip with
one document per record, each valid against the XSD as a whole file, over HTTP with real tokens on
both databases. The dataset is cut into shards (a file's documents come from two of them) and into
two files; a format rendered after completion is zipped too; a record element the XSD declares
only inside another is refused at creation."""

from __future__ import annotations

import io
import zipfile

import pytest
import xmlschema

from app.core.settings import Settings
from app.generation.plan import BLOCK_SIZE
from tests.api_client import Api
from tests.datasets.flow import ORDER_XSD, create_dataset, download, upload_schema, wait_for
from tests.generation.test_xml_documents import NS_XSD

COUNT = BLOCK_SIZE + 300  # two shards of BLOCK_SIZE records
PER_FILE = 3000  # file 1 holds records 3001-4396: the end of shard 0 and all of shard 1


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"workers": 2, "shard_records": BLOCK_SIZE})


def _entries(body: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        assert zf.testzip() is None  # every entry's CRC holds
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def _check_documents(xsd: xmlschema.XMLSchema, entries: list[tuple[str, bytes]], first: int, stem: str) -> None:
    width = max(4, len(str(COUNT)))
    assert [name for name, _ in entries] == [f"{stem}-{n:0{width}d}.xml" for n in range(first + 1, first + 1 + len(entries))]
    for name, doc in entries:
        assert doc.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n'), name
        assert doc.count(b"<?xml") == 1, name
        xsd.validate(doc.decode())  # the whole file, as a user's validator reads it


async def test_documents_layout_downloads_a_zip_of_valid_documents(api: Api) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Documents")
    schema = await upload_schema(api, root, NS_XSD, "contact.xsd")
    ds = await create_dataset(
        api, root, project["project_id"], schema["schema_id"], COUNT, types=["xml", "json"],
        params={"xml_layout": "documents", "records_per_file": PER_FILE, "seed": 7},
    )
    done = await wait_for(api, root, ds["dataset_id"])
    assert done["status"] == "completed", done
    xml_files = sorted((f for f in done["files"] if f["format"] == "xml"), key=lambda f: f["file_index"])
    assert [f["records"] for f in xml_files] == [PER_FILE, COUNT - PER_FILE]

    xsd = xmlschema.XMLSchema(NS_XSD.decode())
    stem = f"dataset-{ds['dataset_id']}"
    seen = 0
    for f in xml_files:
        r = await download(api, root, ds["dataset_id"], "xml", f["file_index"])
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/zip"
        suffix = f"-{f['file_index']}" if f["file_index"] else ""
        assert f'filename="{stem}{suffix}.zip"' in r.headers["content-disposition"]
        assert len(r.content) == f["size_bytes"]
        entries = _entries(r.content)
        assert len(entries) == f["records"]
        _check_documents(xsd, entries, seen, stem)
        seen += len(entries)
    assert seen == COUNT
    # the other formats are as ever
    r = await download(api, root, ds["dataset_id"], "json", 0)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")


async def test_documents_rendered_after_completion_and_local_root_refused(api: Api) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Rendered documents")
    schema = await upload_schema(api, root, NS_XSD, "contact.xsd")
    ds = await create_dataset(
        api, root, project["project_id"], schema["schema_id"], 40, types=["json"],
        params={"xml_layout": "documents", "seed": 3},
    )
    done = await wait_for(api, root, ds["dataset_id"])
    assert done["status"] == "completed", done
    r = await download(api, root, ds["dataset_id"], "xml")  # not among its types: rendered now
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/zip"
    entries = _entries(r.content)
    assert len(entries) == 40
    _check_documents(xmlschema.XMLSchema(NS_XSD.decode()), entries, 0, f"dataset-{ds['dataset_id']}")

    # customer_orders/customer_order is declared inside customer_orders: no document of its own
    orders = await upload_schema(api, root, ORDER_XSD, "orders.xsd")
    refused = await create_dataset(
        api, root, project["project_id"], orders["schema_id"], 5, status=422, types=["xml"],
        params={"xml_layout": "documents"},
    )
    assert refused["field"] == "params.xml_layout"
    assert "choose the root 'customer_orders'" in refused["detail"]
    ok = await create_dataset(
        api, root, project["project_id"], orders["schema_id"], 5, types=["xml"],
        params={"xml_layout": "documents", "root": "customer_orders"},
    )
    done = await wait_for(api, root, ok["dataset_id"])
    assert done["status"] == "completed", done
    r = await download(api, root, ok["dataset_id"], "xml")
    checker = xmlschema.XMLSchema(ORDER_XSD.decode())
    for _, doc in _entries(r.content):
        checker.validate(doc.decode())
