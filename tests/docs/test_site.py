"""The documentation site: it builds with ``mkdocs build --strict``, every page is in it, and each fact is said once.

The site is MkDocs with Material and mkdocstrings (``mkdocs.yml``; the ``docs``
extra installs them). Its home page is the README (``docs/hooks.py``), so the
README and the pages are one text, and a paragraph said twice, in two pages or in
the README and a page, is two copies of one fact that will drift apart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from tests.docs.markdown import DOCS, README, ROOT, doc_files, file_blocks, paragraphs

MIN_WORDS = 12  # a paragraph this long or shorter may be said twice ("Examples here reuse `judge`...")
LANDING_WORDS = 2000  # the README is a landing page (about 1,500 words), not the manual


def _paragraphs(text: str) -> list[str]:
    """The prose of a markdown file: its paragraphs, list items and table rows, code blocks left out."""
    return [words for _, words in paragraphs(text)]


def test_no_paragraph_is_said_in_two_places() -> None:
    where: dict[str, set[str]] = defaultdict(set)
    for source in doc_files():
        for paragraph in _paragraphs((ROOT / source).read_text(encoding="utf-8")):
            if len(paragraph.split()) > MIN_WORDS:
                where[paragraph.lower()].add(source)
    twice = {paragraph[:100]: sorted(files) for paragraph, files in where.items() if len(files) > 1}
    assert twice == {}, "these paragraphs are said in two places: keep one, link to it from the other"


def test_the_paragraph_reader_sees_lists_tables_and_not_code() -> None:
    text = "Para one\nwraps.\n\n- item a\n- item b\n  wraps\n\n| a | b |\n\n```python\ncode here\n```\n"
    assert _paragraphs(text) == ["Para one wraps.", "item a", "item b wraps", "a | b"]


def test_the_readme_is_a_landing_page_whose_links_reach_the_pages() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.split()) < LANDING_WORDS
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert links, "the README links into no page"
    assert [link for link in links if not (ROOT / link).is_file()] == []


def _nav_pages(nav: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages.extend(_nav_pages(value) if isinstance(value, list) else [str(value)])
    return pages


def test_every_page_is_in_the_nav_and_every_subpackage_in_the_reference() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = _nav_pages(config["nav"])
    on_disk = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(pages) == on_disk
    reference = " ".join((DOCS / "reference").joinpath(page).read_text(encoding="utf-8") for page in os.listdir(DOCS / "reference"))
    subpackages = sorted(
        path.parent.name
        for path in (ROOT / "langchain_jev").glob("*/__init__.py")
        if path.parent.name != "cli"  # the command line is documented by its --help and its page
        and not path.parent.name.startswith("_")  # a private package is no face to document
    )
    assert [name for name in subpackages if f"::: langchain_jev.{name}\n" not in reference] == []


# what the examples write: a results file, a report, a calibrated judge, a cache...
_WRITES = re.compile(r"""(?:--(?:out|html|write-judge|json|cache|jev-cache)\s+|SQLiteCache\(")([\w./-]+)""")


def test_every_file_the_docs_write_is_ignored_by_git() -> None:
    """Following the docs from a checkout leaves no untracked file behind but the ones a reader writes."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    written = sorted(
        {
            name
            for source in doc_files()
            for block in file_blocks(source)
            if block.lang in ("python", "bash")  # what a reader runs; ``text`` blocks show commands on their own data
            for name in _WRITES.findall(block.code)
            if name != "-" and not name.isupper() and not name.split(".")[0].isupper()
        }
    )
    assert "results.jsonl" in written and "jev-cache.sqlite" in written
    result = subprocess.run(["git", "check-ignore", "--no-index", *written], cwd=ROOT, capture_output=True, text=True)
    ignored = set(result.stdout.split())
    assert [name for name in written if name not in ignored] == [], "add these to .gitignore"


@pytest.mark.slow
def test_the_site_builds_strict_with_no_warning(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "WARNING" not in log, log
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Your first verdict, without a key" in home  # the home page is the README
    assert 'href="getting-started/"' in home  # its links into docs/ work on the site
    api = (tmp_path / "site" / "reference" / "index.html").read_text(encoding="utf-8")
    assert 'id="langchain_jev.JevJudge"' in api  # the reference is generated from the docstrings
