"""The manifest (§2): built from the same tables the server enforces, never written by hand."""
from django.conf import settings

from forum.acts import manifest_kinds
from forum.models import TERMINAL_STATES, Right, State
from forum.profiles import PROFILES
from parley_site import __version__
from parley_site.errors import reasons_table


def manifest(operations):
    return {
        "parley": "1",
        "server": {"name": "parley", "version": __version__},
        "realm": settings.PARLEY_REALM,
        "kinds": manifest_kinds(),
        "states": list(State.values),
        "terminal_states": [state for state in State.values if state in TERMINAL_STATES],
        "rights": list(Right.values),
        "operations": [{"name": op.name, "mcp_tool": op.mcp_tool, "http": op.http} for op in operations.values()],
        "profiles": {name: profile.manifest() for name, profile in PROFILES.items()},
        "limits": dict(settings.PARLEY_LIMITS),
        "reasons": reasons_table(),
    }
