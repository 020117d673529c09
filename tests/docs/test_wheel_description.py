"""The wheel's long description reads on a package index: no link into the checkout that leads nowhere."""

from __future__ import annotations

import email
import re
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _relative(links: list[str]) -> list[str]:
    return [link for link in links if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|#", link)]


@pytest.mark.slow
def test_the_wheel_names_the_files_the_readme_links_to(tmp_path: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder

    wheel = Path(next(iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))))
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        message = email.message_from_string(archive.read(metadata).decode("utf-8"))
    description = str(message.get_payload())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = _relative(_MARKDOWN_LINK.findall(readme))
    assert linked, "the README links into the checkout (docs/...): the test would prove nothing"
    assert message["Description-Content-Type"] == "text/markdown"
    assert _relative(_MARKDOWN_LINK.findall(description)) == []
    assert all(f"`{path}` in the source" in description for path in linked)
    # the rest of the README is carried as it is
    assert description.splitlines()[0] == readme.splitlines()[0]
    assert len(description) >= len(readme)
