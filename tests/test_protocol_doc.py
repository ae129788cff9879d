"""docs/protocol.md's tables are rendered from the code that enforces them (`manage.py parley_protocol_doc`);
this suite fails whenever they are stale."""
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from forum import protocol_doc
from parley_site.shapes import Obj, Ref, Str

PROJECT = Path(__file__).resolve().parents[1]
DOCUMENT = PROJECT / "docs/protocol.md"


def check(path):
    call_command("parley_protocol_doc", "--check", "--path", str(path))


def section(text, name):
    return protocol_doc.section_pattern(name).search(text).group(1)


@pytest.fixture
def copy(tmp_path):
    """A copy of the document to spoil."""
    path = tmp_path / DOCUMENT.name
    path.write_text(DOCUMENT.read_text())
    return path


def spoil(path, name, old, new):
    text = path.read_text()
    body = section(text, name)
    assert old in body
    path.write_text(text.replace(body, body.replace(old, new, 1)))


def test_docs_protocol_md_holds_what_the_code_renders():
    check(DOCUMENT)


def test_the_check_names_each_stale_table_and_writes_nothing(copy):
    spoil(copy, "transitions", "→ answered", "→ decided")
    spoil(copy, "limits", "| 500 |", "| 5000 |")
    spoiled = copy.read_text()
    with pytest.raises(CommandError) as stale:
        check(copy)
    assert "stale: transitions, limits" in str(stale.value)
    assert copy.read_text() == spoiled


def test_rendering_rewrites_the_tables_and_keeps_the_prose_around_them(copy):
    spoil(copy, "reasons", "`self_reply`", "`self_answer`")
    copy.write_text(copy.read_text().replace("For people writing a client", "For those writing a client"))
    call_command("parley_protocol_doc", "--path", str(copy))
    check(copy)
    assert copy.read_text() == DOCUMENT.read_text().replace("For people writing", "For those writing")


def test_a_table_without_its_markers_is_refused_by_name(copy):
    copy.write_text(copy.read_text().replace(protocol_doc.end("operations"), ""))
    with pytest.raises(CommandError, match="no markers for the table operations"):
        check(copy)


def test_the_transitions_are_asked_of_the_policy_the_services_enforce(monkeypatch):
    def close_anything(kind, state):
        return "closed"
    monkeypatch.setattr(protocol_doc, "next_state", close_anything)
    with pytest.raises(CommandError, match="stale: transitions;"):
        check(DOCUMENT)


def test_the_limits_are_those_the_server_reads(settings):
    settings.PARLEY_LIMITS = {**settings.PARLEY_LIMITS, "max_depth": 3}
    with pytest.raises(CommandError, match="stale: limits;"):
        check(DOCUMENT)


def test_a_stale_document_fails_the_command_with_a_non_zero_exit(copy):
    spoil(copy, "kinds", "| `note` | yes |", "| `note` | no |")
    done = subprocess.run([sys.executable, "manage.py", "parley_protocol_doc", "--check", "--path", str(copy)],
                          cwd=PROJECT, capture_output=True, text=True, env={"DEBUG": "1", "PATH": ""})
    assert done.returncode != 0
    assert "stale: kinds" in done.stderr


def test_the_shapes_are_read_from_the_schemas_the_operations_answer(monkeypatch):
    read_message = protocol_doc.OPERATIONS["read_message"]
    answer = read_message.output_schema
    message = {**answer["properties"]["message"]}
    message["properties"] = {**message["properties"], "mood": {"type": "string"}}
    monkeypatch.setitem(protocol_doc.OPERATIONS, "read_message", replace(
        read_message, output={**answer, "properties": {"message": message}}))
    with pytest.raises(CommandError, match="stale: shapes;"):
        check(DOCUMENT)


def test_the_arguments_are_read_from_the_shapes_that_validate_them(monkeypatch):
    confirm = protocol_doc.OPERATIONS["confirm"]
    monkeypatch.setitem(protocol_doc.OPERATIONS, "confirm", replace(
        confirm, input=lambda: Obj({"thread": Ref("th"), "why": Str()}, required=["thread"])))
    with pytest.raises(CommandError, match="stale: operations;"):
        check(DOCUMENT)


def test_keys_say_which_may_be_absent_and_what_an_object_or_a_list_of_objects_holds():
    schema = {"properties": {
        "id": {"type": "string"},
        "from": {"properties": {"identity": {}, "label": {}}, "required": ["identity"]},
        "redacted": {"anyOf": [{"properties": {"by": {}, "at": {}}, "required": ["by", "at"]}, {"type": "null"}]},
        "proofs": {"type": "array", "items": {"properties": {"kind": {}}, "required": ["kind"]}},
        "note": {"type": ["string", "null"]},
    }, "required": ["id", "from", "redacted", "proofs"]}
    assert protocol_doc.keys(schema) == "id, from {identity, label?}, redacted {by, at}, proofs [{kind}], note?"
    assert protocol_doc.keys(schema, depth=1) == "id, from, redacted, proofs, note?"
