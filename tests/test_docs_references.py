"""Every reference to a section of a document names a section that exists.

The repository points into its documents in a few fixed forms, in code comments, docstrings,
requirement files and the documents themselves:

- `docs/benchmarks.md → LoCoMo`, `docs/search.md → "The cost of common words"`, chained
  (`docs/benchmarks.md → LoCoMo → "Where the misses are"`), also after a link
  (`[benchmarks.md](benchmarks.md) → Load`) and for the README (`README → Configuration`);
- `docs/synapse-model.md §5` (a numbered section), optionally followed by a quoted title;
- markdown links with an anchor, between the documents: `[text](ui.md#some-heading)`,
  `[text](#some-heading)`; and every relative link or image of a document names a file that exists.

A section is a markdown heading or a bold run-in title at the start of a paragraph or list item
(`**Its memory.** …`). An unquoted name refers to the section whose title starts with it, or
whose title's head (up to the first `:`, `(`, `—` or `,`) it starts with: `→ LoCoMo` is
"LoCoMo retrieval", `→ the vector half has what …` is "The vector half: exact scan or HNSW …".
A quoted name must appear in a section's title.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What is scanned for references: the project's own text files.
SCANNED_SUFFIXES = {".py", ".md", ".txt", ".toml", ".html", ".cfg", ".ini", ".yml", ".yaml", ".sh"}
SCANNED_NAMES = {"Makefile", ".importlinter"}
SKIPPED_DIRS = {".git", ".venv", "var", "node_modules", "__pycache__", "results", ".pytest_cache", "vendor"}

# `docs/x.md`, `x.md` (inside docs/) or `README`, optionally in backticks or as a markdown link,
# followed by an arrow.
ARROW_REFERENCE = re.compile(
    r"(?:\[[^\]\n]*\]\((?P<link>[\w./-]+\.md)\)|`?(?P<path>(?:[\w./-]+/)?[\w-]+\.md|README)\b`?)"
    r"\s*(?:\n[ \t]*(?:#[ \t]*)?)?→"
)
SECTION_NUMBER_REFERENCE = re.compile(r"(?P<path>(?:[\w./-]+/)?[\w-]+\.md)`?\)?\s*§(?P<number>\d+)")
MARKDOWN_LINK = re.compile(r"!?\[[^\]\n]*\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
RUN_IN_TITLE = re.compile(r"^(?:[-*]\s+|\d+\.\s+)?\*\*(?P<title>[^*\n]+?)[.:]?\*\*")
NUMBERED_TITLE = re.compile(r"^(?P<number>\d+)\.\s")
UNQUOTED_END = re.compile(r"[).,;:(\"\[\]`]|\s→|\s-\s|$")
TITLE_HEAD_END = re.compile(r"[:(—,]")


@dataclass(frozen=True)
class Reference:
    source: str  # file:line
    document: Path
    names: tuple[str, ...]  # each `→` segment: a quoted title (with its quotes) or unquoted words


def _scanned_files() -> list[Path]:
    files = []
    for path in sorted(ROOT.rglob("*")):
        relative = path.relative_to(ROOT)
        if any(part in SKIPPED_DIRS for part in relative.parts[:-1]) or not path.is_file():
            continue
        if path == Path(__file__).resolve():
            continue  # its examples are not references
        if path.suffix in SCANNED_SUFFIXES or path.name in SCANNED_NAMES:
            files.append(path)
    return files


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _plain(text: str) -> str:
    """A title or a name as words: no markup, lower case, one space between words."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = text.replace("`", "").replace("*", "")
    return " ".join(text.lower().split())


@cache
def _sections(document: Path) -> tuple[str, ...]:
    titles = []
    in_code = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if heading := HEADING.match(line):
            titles.append(heading["title"])
        elif run_in := RUN_IN_TITLE.match(line.strip()):
            titles.append(run_in["title"])
    return tuple(titles)


def _slug(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces become hyphens."""
    text = _plain(title)
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


@cache
def _anchors(document: Path) -> frozenset[str]:
    anchors = set()
    seen: dict[str, int] = {}
    for line in document.read_text(encoding="utf-8").splitlines():
        if heading := HEADING.match(line):
            slug = _slug(heading["title"])
            count = seen.get(slug, 0)
            anchors.add(slug if count == 0 else f"{slug}-{count}")
            seen[slug] = count + 1
    return frozenset(anchors)


def _resolve(path: str, source: Path) -> Path | None:
    """The document a reference names: relative to its file for a docs page, else the root."""
    if path == "README":
        return ROOT / "README.md"
    candidates = [source.parent / path, ROOT / path, ROOT / "docs" / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    return None


def _names_after_arrow(text: str) -> tuple[str, ...]:
    """The `→` segments that follow a reference, each quoted or as unquoted words."""
    names = []
    rest = text
    while True:
        rest = rest.lstrip(" \t")
        if rest.startswith("\n"):  # a name on the next line of a comment or a paragraph
            rest = re.sub(r"^\n[ \t]*(?:#[ \t]*)?", "", rest)
        if rest.startswith('"'):
            end = rest.find('"', 1)
            quoted = rest[1:end] if end > 0 else rest[1:]
            names.append('"' + " ".join(re.sub(r"\n[ \t]*(?:#[ \t]*)?", " ", quoted).split()) + '"')
            rest = rest[end + 1 :] if end > 0 else ""
        else:
            line = rest.split("\n", 1)[0]
            end = UNQUOTED_END.search(line)
            names.append(line[: end.start()].strip())
            rest = rest[end.start() :]
        following = re.match(r"\s*→", rest)
        if not following:
            return tuple(names)
        rest = rest[following.end() :]


def _arrow_references() -> list[Reference]:
    references = []
    for path in _scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        if "→" not in text:
            continue
        for match in ARROW_REFERENCE.finditer(text):
            named = match["link"] or match["path"]
            line = text.count("\n", 0, match.start()) + 1
            document = _resolve(named, path)
            names = _names_after_arrow(text[match.end() :])
            references.append(Reference(f"{path.relative_to(ROOT)}:{line}", document or path.parent / named, names))
    return references


def _name_resolves(name: str, titles: tuple[str, ...]) -> bool:
    if name.startswith('"'):
        wanted = _plain(name.strip('"'))
        return any(wanted in _plain(title) for title in titles)
    words = _plain(name)
    if not words:
        return False
    for title in titles:
        plain = _plain(title)
        head = _plain(TITLE_HEAD_END.split(title, 1)[0])
        if (plain + " ").startswith(words + " ") or (words + " ").startswith(head + " "):
            return True
    return False


def test_the_scan_finds_the_forms_the_repository_uses():
    """Guards the scan itself: if these stop being found, the checks below check nothing."""
    found = {(ref.document.name, ref.names) for ref in _arrow_references()}
    assert ("benchmarks.md", ("LoCoMo",)) in found  # synapses/constants.py
    assert ("benchmarks.md", ("LoCoMo", '"Where the misses are"')) in found  # a chain
    assert ("operations.md", ('"Its memory"',)) in found  # a quoted name broken across lines
    assert ("README.md", ("Configuration",)) in found  # memoryproject/settings.py
    assert len(found) >= 20


@pytest.mark.parametrize(
    ("name", "titles", "resolves"),
    [
        ("LoCoMo", ("LoCoMo retrieval",), True),
        ("the vector half has what other index parameters", ("The vector half: exact scan or HNSW",), True),
        ('"fewer round trips"', ("2026-12-02: fewer round trips, facts kept per process",), True),
        ("The corpus", ("The corpus (`bench/corpus.py`)",), True),
        ("Locomotion", ("LoCoMo retrieval",), False),
        ("A section that is gone", ("LoCoMo retrieval", "The corpus (`bench/corpus.py`)"), False),
        ('"Where the hits are"', ("Where the misses are",), False),
    ],
)
def test_a_name_resolves_only_to_a_section_that_has_it(name, titles, resolves):
    assert _name_resolves(name, titles) is resolves


def test_every_arrow_reference_names_a_section_of_its_document():
    broken = []
    for ref in _arrow_references():
        if not ref.document.is_file():
            broken.append(f"{ref.source}: {ref.document} → no such document")
            continue
        broken += [
            f"{ref.source}: {ref.document.relative_to(ROOT)} → {name} (no section has it)"
            for name in ref.names
            if not _name_resolves(name, _sections(ref.document))
        ]
    assert not broken, "\n".join(broken)


def test_every_numbered_section_reference_exists():
    broken = []
    for path in _scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in SECTION_NUMBER_REFERENCE.finditer(text):
            document = _resolve(match["path"], path)
            if document is None:
                continue
            numbers = {m["number"] for title in _sections(document) if (m := NUMBERED_TITLE.match(title))}
            if match["number"] not in numbers:
                line = text.count("\n", 0, match.start()) + 1
                broken.append(f"{path.relative_to(ROOT)}:{line}: {match['path']} §{match['number']}")
            quoted = re.match(r',\s*"([^"]+)"', text[match.end() :])
            if quoted and not _name_resolves(f'"{quoted[1]}"', _sections(document)):
                line = text.count("\n", 0, match.start()) + 1
                broken.append(f'{path.relative_to(ROOT)}:{line}: {match["path"]} §{match["number"]}, "{quoted[1]}"')
    assert not broken, "\n".join(broken)


def test_every_link_between_the_documents_reaches_its_file_and_heading():
    broken = []
    for document in _documents():
        in_code = False
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), start=1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for match in MARKDOWN_LINK.finditer(line):
                target = match["target"]
                if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (document.parent / file_part).resolve() if file_part else document
                where = f"{document.relative_to(ROOT)}:{number}: {target}"
                if not linked.exists():
                    broken.append(f"{where} (no such file)")
                elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                    broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)
