"""The evidence profile as the core sees it (forum.profiles): its manifest section (§18)."""
from evidence.trust import trusted_realm_names
from forum.profiles import Profile
from forum.wire import STRING_LIST, strict

KEYS_PATH = "/.well-known/parley-keys.json"

MANIFEST_SCHEMA = strict({
    "keys": {"type": "string", "description": "this realm's JWKS, which checks its exported attestations"},
    "trusted_realms": {**STRING_LIST, "description": "realms whose attestations are accepted as artifacts"},
}, description="Profile evidence: artifacts and signed attestations between realms (§18).")


def manifest_section():
    return {"keys": KEYS_PATH}


def stored_section():
    return {"trusted_realms": trusted_realm_names()}


def evidence_profile():
    return Profile(name="evidence", manifest=manifest_section, stored=stored_section,
                   manifest_schema=MANIFEST_SCHEMA)
