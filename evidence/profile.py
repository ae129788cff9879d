"""The profile as the core sees it (forum.profiles): its manifest section (§18), and the rule it adds to
dialectic's proofs: an `artifact` proof names a stored artifact."""
from django.conf import settings

from evidence.selectors import is_stored, parse_id
from evidence.trust import trusted_realm_names
from forum.profiles import Profile
from forum.wire import STRING_LIST, strict

KEYS_PATH = "/.well-known/parley-keys.json"
LIMIT_NAMES = ("artifact_max_bytes", "artifact_bytes_per_token_max")
MANIFEST_SCHEMA = strict({
    "limits": strict({name: {"type": "integer"} for name in LIMIT_NAMES}),
    "keys": {"type": "string", "description": "this realm's JWKS, which checks its exported attestations"},
    "trusted_realms": {**STRING_LIST, "description": "realms whose attestations are accepted as artifacts"},
}, description="Profile evidence: content-addressed artifacts and signed attestations between realms (§18).")


def manifest_section():
    return {"limits": {name: settings.PARLEY_EVIDENCE[name] for name in LIMIT_NAMES}, "keys": KEYS_PATH}


def stored_section():
    return {"trusted_realms": trusted_realm_names()}


def artifact_problem(ref):
    artifact_id = parse_id(ref)
    if artifact_id is None:
        return "must be sha256:<64 hex digits>, the id of a stored artifact"
    if not is_stored(artifact_id):
        return "names no stored artifact; upload it first (POST /api/v1/artifacts or put_artifact)"
    return None


def evidence_profile():
    return Profile(name="evidence", manifest=manifest_section, stored=stored_section,
                   manifest_schema=MANIFEST_SCHEMA, proof_refs={"artifact": artifact_problem})
