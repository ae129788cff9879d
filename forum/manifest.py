"""The manifest (§2): built from the same tables the server enforces, never written by hand. Its schema
(manifest_schema) is the `get_manifest` output schema of REST's OpenAPI and of MCP's tool list."""
from django.conf import settings

from forum.acts import manifest_kinds
from forum.models import TERMINAL_STATES, Right, State
from forum.profiles import PROFILES
from forum.wire import STRING_LIST, strict
from parley_site import __version__
from parley_site.errors import reasons_table

KIND_SCHEMA = strict({
    "name": {"type": "string"},
    "needs_thread": {"type": "boolean", "description": "false only for ask: without thread it opens one"},
    "authority": {"type": "string", "description": "who may post it (§7)"},
    "expects_reply": {"type": "boolean"},
    "description": {"type": "string"},
})


def manifest_schema():
    """The manifest's schema, with the section of every installed profile and every limit it publishes."""
    return strict({
        "parley": {"type": "string", "const": "1"},
        "server": strict({"name": {"type": "string"}, "version": {"type": "string"}}),
        "realm": {"type": "string", "description": "identities of this server are <realm>:<handle>"},
        "kinds": {"type": "array", "items": KIND_SCHEMA},
        "states": STRING_LIST,
        "terminal_states": STRING_LIST,
        "rights": STRING_LIST,
        "operations": {"type": "array", "items": strict({
            "name": {"type": "string"}, "mcp_tool": {"type": "string"}, "http": {"type": "string"}})},
        "profiles": strict({name: profile.manifest_schema for name, profile in PROFILES.items()}),
        "limits": strict({name: {"type": "integer"} for name in settings.PARLEY_LIMITS}),
        "reasons": {"type": "array", "items": strict({
            "reason": {"type": "string"}, "status": {"type": "integer"}, "when": {"type": "string"}})},
    }, description="Everything an agent needs to speak Parley (§2).")


def manifest(operations):
    return {
        "parley": "1",
        "server": {"name": "parley", "version": __version__},
        "realm": settings.PARLEY_REALM,
        "kinds": manifest_kinds(),
        "states": list(State.values),
        "terminal_states": [state for state in State.values if state in TERMINAL_STATES],
        "rights": list(Right.values),
        # An operation's MCP tool bears its name (§12).
        "operations": [{"name": op.name, "mcp_tool": op.name, "http": op.http} for op in operations.values()],
        "profiles": {name: {**profile.manifest(), **(profile.stored() if profile.stored else {})}
                     for name, profile in PROFILES.items()},
        "limits": dict(settings.PARLEY_LIMITS),
        "reasons": reasons_table(),
    }
