"""parley_site.records: one declaration gives an answer's JSON and its JSON Schema, so both have the same
keys in the same order, and a value that may be null is written the portable way (`anyOf`, never a type
array)."""
from datetime import datetime, timezone
from types import SimpleNamespace

from jsonschema import Draft202012Validator

from parley_site.records import Field, Json, Key, ListOf, Record, Text, Time

WHO = Record({"identity": Field(Text()), "extension": Field(Text(), nullable=True)}, keyed=True)
NOTE = Record({
    "id": Field(Key("msg"), "pk"),
    "body": Field(Text()),
    "label": Field(Text(), optional=True, description="only when set"),
    "by": Field(WHO, lambda note: {"identity": note.identity, "extension": note.extension}),
    "at": Field(Time(), nullable=True, description="when, if known"),
    "tags": Field(ListOf(Key("tag"))),
    "extra": Field(Json({"type": "object"}), nullable=True),
}, description="A note.")
AT = datetime(2026, 12, 1, 10, 0, 0, 250000, tzinfo=timezone.utc)


def note(**changes):
    fields = {"pk": 7, "body": "", "label": "", "identity": "realm:ann", "extension": "", "at": AT,
              "tags": [1, 2], "extra": {"b": 1, "a": 2}}
    return SimpleNamespace(**{**fields, **changes})


def test_a_record_renders_its_fields_in_the_order_declared_and_describes_exactly_those():
    rendered = NOTE.render(note(label="L"))
    assert list(rendered) == ["id", "body", "label", "by", "at", "tags", "extra"]
    assert set(NOTE.schema()["properties"]) == set(rendered)
    assert rendered == {"id": "msg_7", "body": "", "label": "L", "by": {"identity": "realm:ann", "extension": None},
                        "at": "2026-12-01T10:00:00.250000Z", "tags": ["tag_1", "tag_2"], "extra": {"b": 1, "a": 2}}
    assert list(rendered["extra"]) == ["b", "a"]  # JSON stored is answered as it is
    assert Draft202012Validator(NOTE.schema()).is_valid(rendered)


def test_an_optional_field_is_left_out_when_absent_and_not_required():
    rendered = NOTE.render(note(label=""))
    assert "label" not in rendered
    assert "label" not in NOTE.schema()["required"]
    assert Draft202012Validator(NOTE.schema()).is_valid(rendered)


def test_a_nullable_field_renders_an_absent_value_as_null_and_a_blank_required_text_stays_blank():
    rendered = NOTE.render(note(at=None, extra=None))
    assert (rendered["at"], rendered["extra"], rendered["by"]["extension"], rendered["body"]) == (None, None, None, "")
    assert Draft202012Validator(NOTE.schema()).is_valid(rendered)


def test_a_nullable_field_is_any_of_its_type_and_null_with_its_description_outside():
    schema = NOTE.schema()
    assert schema["properties"]["at"] == {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}],
                                          "description": "when, if known"}
    assert schema["properties"]["by"]["properties"]["extension"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema["description"] == "A note." and schema["additionalProperties"] is False


def test_no_schema_of_a_record_writes_a_type_array():
    def types(node):
        if isinstance(node, dict):
            yield from ([node["type"]] if "type" in node else [])
            for value in node.values():
                yield from types(value)
        elif isinstance(node, list):
            for value in node:
                yield from types(value)
    assert all(isinstance(found, str) for found in types(NOTE.schema()))
