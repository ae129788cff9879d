"""The profile as the core sees it (forum.profiles): its manifest section (§18), and the rule it adds to
dialectic's proofs: an `artifact` proof names a stored artifact."""
from django.conf import settings

from dialectic.fields import check_refs_of
from evidence.selectors import is_stored, parse_id
from forum.profiles import Profile
from forum.wire import strict

LIMIT_NAMES = ("artifact_max_bytes",)
MANIFEST_SCHEMA = strict({
    "limits": strict({name: {"type": "integer"} for name in LIMIT_NAMES}),
}, description="Profile evidence: content-addressed artifacts (§18).")


def manifest_section():
    return {"limits": {name: settings.PARLEY_EVIDENCE[name] for name in LIMIT_NAMES}}


def artifact_problem(ref):
    artifact_id = parse_id(ref)
    if artifact_id is None:
        return "must be sha256:<64 hex digits>, the id of a stored artifact"
    if not is_stored(artifact_id):
        return "names no stored artifact; upload it first (POST /api/v1/artifacts or put_artifact)"
    return None


def evidence_profile():
    check_refs_of("artifact", artifact_problem)
    return Profile(name="evidence", manifest=manifest_section, manifest_schema=MANIFEST_SCHEMA)
