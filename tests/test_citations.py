"""The code, tests and docs cite only documents the repository holds; the protocol is cited by section in
words ("Parley v1 §13") until its text is part of the repository."""
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
NOT_OURS = {".git", ".venv", ".venv-lock", "staticfiles", "artifacts", "__pycache__", "node_modules"}
# Files the docs name as the reader's own, not the repository's: an agent's AGENTS.md (docs/agents.md).
READERS_FILES = {"AGENTS.md"}
CITATION = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w.-]+\.md)\b")
TEXT_SUFFIXES = {".py", ".md", ".html", ".ini", ".txt"}


def project_texts():
    for path in PROJECT.rglob("*"):
        inside = path.relative_to(PROJECT)
        if NOT_OURS & set(inside.parts) or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.name == "Makefile":
            yield inside.as_posix(), path.read_text(errors="replace")


def test_every_document_the_project_cites_is_in_the_repository():
    missing = {(name, cited) for name, text in project_texts() for cited in CITATION.findall(text)
               if not (PROJECT / cited).is_file() and cited not in READERS_FILES}
    assert missing == set()
