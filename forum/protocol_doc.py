"""The tables of docs/protocol.md, rendered from the tables the server enforces: the acts table, the
transition policy (asked cell by cell), the refusal classes, the limits the services read, the operations
registry and the profiles plugged into it. The prose around them is written by hand; each table stands
between two markers, and only what lies between them is ever rewritten (manage.py parley_protocol_doc)."""
import re

from django.conf import settings

from forum.acts import ACTS
from forum.models import TERMINAL_STATES, State
from forum.dispatch import OPERATIONS
from forum.policies import STATE_UNCHANGED, Illegal, next_state
from forum.profiles import PROFILES
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
    return table(["operation (MCP tool)", "HTTP", "writes", "what it does"],
                 [[code(op.name), code(op.http), yes_no(not op.read_only),
                   op.description_text.split("\n")[0]]
                  for op in OPERATIONS.values()])


SECTIONS = {"kinds": kinds, "profile-kinds": profile_kinds, "transitions": transitions, "reasons": reasons,
            "limits": limits, "operations": operations}
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
