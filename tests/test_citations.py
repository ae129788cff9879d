"""What the code, tests and docs cite resolves in the repository: every document they name is in it, and
every section of the protocol they cite ("§13", "Parley v1 §7 rule 3", "§14.1") is a heading of
docs/protocol.md, the protocol as this server speaks it, section by section with the protocol's numbers."""
import re
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
NOT_OURS = {".git", ".venv", ".venv-lock", "staticfiles", "artifacts", "__pycache__", "node_modules"}
# Files the docs name as the reader's own, not the repository's: an agent's AGENTS.md (docs/agents.md).
READERS_FILES = {"AGENTS.md"}
CITATION = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w.-]+\.md)\b")
TEXT_SUFFIXES = {".py", ".md", ".html", ".ini", ".txt", ".js", ".po"}
PROTOCOL = "docs/protocol.md"

# A section: §13, §4.1, and a range's both ends (§5–§9, §6-7).
SECTION = re.compile(r"§ ?(\d+(?:\.\d+)*)(?: ?[-–] ?(?:§ ?)?(\d+(?:\.\d+)*))?")
# A § cites another document, not the protocol, when that document's name stands before it in the same
# clause, at most three words away (nothing but words, spaces, commas, parentheses and a comment's `#`
# between, and no `Parley` among them): a standard by its series and number (RFC 9110, BCP 14, PEP 8,
# DEP 0014) or a file by its name (docs/deploy.md). Its other sections between do not count as words:
# "RFC 9110 §5.6 and §8.3" cites two of RFC 9110's.
OTHER_DOCUMENT = re.compile(
    r"(?P<document>\b(?:RFC|BCP|STD|PEP|DEP) ?\d+|(?<![\w./-])(?:[\w-]+/)*[\w.-]+\.(?:md|txt|rst))"
    r"(?P<between>(?:(?:[\s,(#*]+§[\d.]+)*[\s,(#*]+[^\s.;:§]+){0,3}(?:[\s,(#*]+§[\d.]+)*)[\s,(#*]*$")
# A numbered heading: `## §13 Refusals` here, `## 7. Past one machine` in the other docs.
HEADING = re.compile(r"^#{1,6} +§?(\d+(?:\.\d+)*)\.?(?= )", re.MULTILINE)


def project_texts():
    for path in PROJECT.rglob("*"):
        inside = path.relative_to(PROJECT)
        if NOT_OURS & set(inside.parts) or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.name == "Makefile":
            yield inside.as_posix(), path.read_text(errors="replace")


def cited_documents(text):
    """The Markdown files a text names, but a name that is a whole string literal: a path the code builds
    ("docs" / "operations.md"), not a citation."""
    for found in CITATION.finditer(text):
        quote = text[found.start() - 1:found.start()]
        if not (quote in ("'", '"') and text[found.end():found.end() + 1] == quote):
            yield found.group(1)


def citations(text):
    """(document, section, line) of every § in `text`; `document` is None for the protocol, else the
    name of the document cited (RFC 9110, docs/deploy.md)."""
    for found in SECTION.finditer(text):
        other = OTHER_DOCUMENT.search(text[max(0, found.start() - 160):found.start()])
        document = other["document"] if other and "Parley" not in other["between"] else None
        line = text.count("\n", 0, found.start()) + 1
        for section in filter(None, found.groups()):
            yield document, section, line


def sections_of(text):
    return set(HEADING.findall(text))


def unresolved(texts, protocol_sections, documents):
    """The citations that point to no section: of the protocol, one `protocol_sections` lacks; of a
    document of the repository (`documents`: its name -> its text), one of its numbered headings lacks.
    Other documents' (RFC 9110 §8.3.1) are theirs to resolve."""
    missing = set()
    for name, text in texts:
        for document, section, line in citations(text):
            if document is None:
                known = protocol_sections
            elif document in documents:
                known = sections_of(documents[document])
            else:
                continue
            if section not in known:
                missing.add((f"{name}:{line}", f"{document or 'Parley v1'} §{section}"))
    return missing


def test_every_document_the_project_cites_is_in_the_repository():
    missing = {(name, cited) for name, text in project_texts() for cited in cited_documents(text)
               if not (PROJECT / cited).is_file() and cited not in READERS_FILES}
    assert missing == set()


def test_every_section_of_the_protocol_the_project_cites_is_a_section_of_docs_protocol_md():
    texts = list(project_texts())
    documents = {name: text for name, text in texts if name.endswith(".md")}
    missing = unresolved(texts, sections_of(documents[PROTOCOL]), documents)
    assert missing == set(), f"cited sections that {PROTOCOL} (or the document named) does not have"


def test_docs_protocol_md_holds_its_sections_in_the_protocols_order_each_once_from_1_without_a_gap():
    numbers = [tuple(map(int, section.split("."))) for section in
               HEADING.findall((PROJECT / PROTOCOL).read_text())]
    assert numbers == sorted(set(numbers))
    sections = [number for (number, *subsection) in numbers if not subsection]
    assert sections == list(range(1, len(sections) + 1))


@pytest.mark.parametrize(("text", "cited"), [
    ("Parley v1 §13", [(None, "13")]),
    ("§7 rule 3, then §14.1's fine print.", [(None, "7"), (None, "14.1")]),
    ("Pure rules of Parley v1 §3, §5–§9", [(None, "3"), (None, "5"), (None, "9")]),
    ("# RFC 9110 §8.3.1: type \"/\" subtype", [("RFC 9110", "8.3.1")]),
    ("RFC 9110 (HTTP Semantics) §5.6 and §8.3", [("RFC 9110", "5.6"), ("RFC 9110", "8.3")]),
    ("as DEP 0014 §3 says", [("DEP 0014", "3")]),
    ("""RFC 9110,
       # §5.6 (a comment's next line)""", [("RFC 9110", "5.6")]),
    ("the database (docs/deploy.md §6-7), so", [("docs/deploy.md", "6"), ("docs/deploy.md", "7")]),
    ("docs/webhooks.md, Parley v1 §17", [(None, "17")]),
    ("See docs/feed.md. §16 says so", [(None, "16")]),
    ("RFC 9110 names media types; §13 names reasons", [(None, "13")]),
    ("RFC 9110 is one thing and quite another is §13", [(None, "13")]),
])
def test_a_section_sign_cites_the_protocol_unless_another_documents_name_comes_just_before_it(text, cited):
    assert [(document, section) for document, section, _ in citations(text)] == cited


def test_a_citation_of_a_section_the_protocol_page_lacks_is_reported_with_its_place():
    texts = [("forum/example.py", "x = 1\n# the lock (§9), the refusal (§13)\n")]
    assert unresolved(texts, {"9"}, {}) == {("forum/example.py:2", "Parley v1 §13")}


def test_a_citation_of_another_documents_section_resolves_in_that_documents_numbered_headings():
    documents = {"docs/deploy.md": "# Deploying\n\n## 6. Several app servers\n\n## 7. Past one machine\n"}
    texts = [("docs/scaling.md", "replicas (docs/deploy.md §7), redaction (docs/deploy.md §8); RFC 9110 §5.6")]
    assert unresolved(texts, set(), documents) == {("docs/scaling.md:1", "docs/deploy.md §8")}
