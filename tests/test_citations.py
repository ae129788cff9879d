"""The code, tests and docs cite only documents the repository holds; the protocol is cited by section in
words ("Parley v1 §13") until its text is part of the repository."""
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
NOT_OURS = {".git", ".venv", ".venv-lock", "staticfiles", "artifacts", "__pycache__"}
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
               if not (PROJECT / cited).is_file()}
    assert missing == set()
