"""The tables of docs/protocol.md, rendered from the tables the server enforces: the acts table, the
transition policy (asked cell by cell), the refusal classes, the limits the services read, the operations
registry with each operation's input and output schemas, and the profiles plugged into it. The prose around
them is written by hand, section by section as the protocol numbers them; each table stands between two
markers in the section it belongs to, and only what lies between them is ever rewritten
(manage.py parley_protocol_doc)."""
import re

from django.conf import settings

from forum.acts import ACTS
from forum.models import TERMINAL_STATES, State
from forum.dispatch import OPERATIONS
from forum.policies import STATE_UNCHANGED, Illegal, next_state
from forum.profiles import PROFILES
from forum.wire import ERROR_SCHEMA
from parley_site.errors import reasons_table

REFUSED = "✗"


def cell(value):
    """A table cell: a `|` escaped so that it cannot split the row, and outside code spans a `<` escaped
    so that `cl_<n>` reads as written instead of as an HTML tag."""
    parts = str(value).replace("|", "\\|").split("`")
    return "`".join(part if index % 2 else part.replace("<", "&lt;") for index, part in enumerate(parts))


def table(header, rows):
    """A Markdown table of the rows under the header."""
    def line(cells):
        return "| " + " | ".join(map(cell, cells)) + " |"
    return "\n".join([line(header), line(["---"] * len(header)), *(line(row) for row in rows)])


def code(name):
    return f"`{name}`"


def yes_no(flag):
    return "yes" if flag else "no"


def kinds():
    return table(
        ["kind", "needs `thread`", "authority (§7)", "marks the state", "expects a reply", "what it does"],
        [[code(act.name), yes_no(act.needs_thread), act.authority, code(act.mark) if act.mark else "—",
          yes_no(act.expects_reply), act.description] for act in ACTS.values()])


def profile_kinds():
    rows = [[profile.name, code(kind["name"]), ", ".join(map(code, kind.get("requires", []))) or "—",
             ", ".join(map(code, kind.get("accepts", []))) or "—", kind["description"]]
            for profile in PROFILES.values() for kind in profile.manifest().get("kinds", [])]
    return table(["profile", "kind", "requires", "accepts", "what it does"], rows)


def column_name(state):
    # A confirmed terminal state is locked before the table applies (§9): its column is the proposal's.
    return f"{state} (p)" if state in TERMINAL_STATES else state


def transition(kind, state):
    try:
        result = next_state(kind, state)
    except Illegal:
        return REFUSED
    return "posted" if result is STATE_UNCHANGED else f"→ {result}"


def transitions():
    row_name = {"ask": "`ask` (follow-up)"}
    return table(["act \\ state", *map(column_name, State.values)],
                 [[row_name.get(kind, code(kind)), *(transition(kind, state) for state in State.values)]
                  for kind in ACTS])


def reasons():
    return table(["status", "reason", "when"],
                 [[entry["status"], code(entry["reason"]), entry["when"]] for entry in reasons_table()])


def limits():
    core = dict(settings.PARLEY_LIMITS)
    rows = [[code(name), value, "core"] for name, value in core.items()]
    rows += [[code(name), value, profile.name] for profile in PROFILES.values()
             for name, value in profile.manifest().get("limits", {}).items() if name not in core]
    return table(["limit", "value", "of"], rows)


def operations():
    return table(["operation (MCP tool)", "HTTP", "writes", "MCP arguments", "what it does"],
                 [[code(op.name), code(op.http), yes_no(not op.read_only), arguments(op),
                   op.description_text.split("\n")[0]]
                  for op in OPERATIONS.values()])


def arguments(operation):
    schema = operation.input().json_schema()
    return code(keys(schema)) if schema["properties"] else "—"


def as_object(schema):
    """The object a property holds, when it holds one: null and `$ref` alternatives left aside."""
    for alternative in schema.get("anyOf", [schema]):
        if "properties" in alternative:
            return alternative
    return None


def keys(schema, depth=3):
    """An object schema's keys in order: `name` always there, `name?` that may be absent, an object's
    own keys after it in braces and a list of objects' in `[{...}]`, `depth` levels deep. Whether a value
    may be null is the prose's to say."""
    required = set(schema.get("required", ()))
    parts = []
    for name, value in schema["properties"].items():
        part = name if name in required else f"{name}?"
        inner, listed = as_object(value), False
        if inner is None and "items" in value:
            inner, listed = as_object(value["items"]), True
        if inner is not None and depth > 1:
            nested = "{" + keys(inner, depth - 1) + "}"
            part += f" [{nested}]" if listed else f" {nested}"
        parts.append(part)
    return ", ".join(parts)


# The shapes of the wire (§12), each read from the output schema of the operation that answers it: (what,
# the operation, the keys leading to it in that answer, how deep its keys are shown). A profile's operation
# that is not installed has no row.
SHAPES = [
    ("a thread", "read_thread", ["thread"], 3),
    ("a message", "read_message", ["message"], 3),
    ("an event", "list_events", ["items"], 3),
    ("a write's answer", "post", [], 1),
    ("a list's page", "list_threads", [], 1),
    ("the caller", "whoami", [], 3),
    ("the manifest", "get_manifest", [], 1),
    ("a claim", "read_claim", ["claim"], 3),
    ("an artifact", "read_artifact", [], 3),
    ("an attestation", "export_attestation", [], 3),
]


def inside(schema, path):
    """The object schema under the keys of `path`, a list's key leading to its items."""
    for name in path:
        value = schema["properties"][name]
        schema = as_object(value.get("items", value))
    return schema


def shapes():
    rows = [[what, code(name), code(keys(inside(OPERATIONS[name].output_schema, path), depth))]
            for what, name, path, depth in SHAPES if name in OPERATIONS]
    rows.append(["a refusal (HTTP)", "every operation", code(keys(ERROR_SCHEMA))])
    return table(["shape", "as answered by", "keys"], rows)


SECTIONS = {"kinds": kinds, "profile-kinds": profile_kinds, "transitions": transitions, "reasons": reasons,
            "limits": limits, "operations": operations, "shapes": shapes}
COMMAND = "python manage.py parley_protocol_doc"


def begin(name):
    return f"<!-- begin {name}: rendered by `{COMMAND}`, do not edit by hand -->"


def end(name):
    return f"<!-- end {name} -->"


def section_pattern(name):
    return re.compile(re.escape(begin(name)) + r"\n(.*?)\n?" + re.escape(end(name)), re.DOTALL)


def rendered():
    return {name: render() for name, render in SECTIONS.items()}


def refresh(text):
    """(the text with every section rendered anew, the names of the sections that were stale). A section
    whose markers are missing is a KeyError naming it: where its table goes is the prose's decision."""
    stale = []
    for name, body in rendered().items():
        pattern = section_pattern(name)
        found = pattern.search(text)
        if found is None:
            raise KeyError(name)
        if found.group(1) != body:
            stale.append(name)
            text = text[:found.start()] + f"{begin(name)}\n{body}\n{end(name)}" + text[found.end():]
    return text, stale
