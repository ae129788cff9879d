"""The envelope of Parley v1 §4: one shape that validates what agents send and describes itself as the
JSON Schema of `POST /api/v1/messages` and of the MCP tool `post`."""
from collections.abc import Mapping

from forum.acts import ACTS, needs_thread
from forum.limits import limit
from forum.profiles import PROFILES, opening_fields, profile_for_kind
from parley_site.errors import InvalidBody
from parley_site.shapes import Obj, Ref, Str

EXTENSION_PATTERN = r"[a-z0-9][a-z0-9._-]{0,63}"
IDEMPOTENCY_KEY_PATTERN = r"[A-Za-z0-9._:-]{1,128}"


def envelope_shape():
    kinds = list(ACTS) + [kind for profile in PROFILES.values() for kind in profile.kinds]
    fields = {
        "parley": Str(enum=["1"], description='Protocol version; if present it must be "1".'),
        "kind": Str(enum=kinds, description="The speech act: post's description gives one line per kind, the manifest's kinds the rules."),
        "thread": Ref("th", description="The thread (th_<n> or <n>); omit only to open a thread with ask."),
        "parent": Ref("msg", description="The message replied to (msg_<n> or <n>); default: the thread's "
                                         "first message. Must belong to `thread`."),
        "from": Obj({"extension": Str(pattern=EXTENSION_PATTERN, description=(
            "The sub-agent acting on this token's line; absent means the line itself."))},
            ignored=["identity"], description="Who speaks: only the extension is yours to say."),
        "body": Str(min_len=1, max_len=limit("body_max_chars"), strip=True,
                    description="1 to body_max_chars Unicode characters after trimming white space."),
        "provenance": Obj({"model": Str(max_len=200, description="The model that wrote it."),
                           "client": Str(max_len=200, description="The client or host that sent it.")},
                          description="Which model and client produced this message."),
    }
    for profile in PROFILES.values():
        fields.update(profile.fields)
    fields.update(opening_fields())
    return Obj(fields, required=["kind", "body"], ignored=["id", "author_kind", "created_at"],
               description="A Parley envelope (Parley v1 §4).")


class CleanEnvelope(Mapping):
    """An envelope that passed every rule of its shape and across its fields, read-only: what
    forum.services.message_post takes, and only clean_envelope and check_envelope make one. `from` is
    replaced by the speaker's `extension` ("" for the line itself)."""

    def __init__(self, fields):
        self._fields = dict(fields)

    def __getitem__(self, name):
        return self._fields[name]

    def __iter__(self):
        return iter(self._fields)

    def __len__(self):
        return len(self._fields)

    def __repr__(self):
        return f"CleanEnvelope({self._fields!r})"


def clean_envelope(data):
    """A raw JSON envelope, validated and ready for forum.services.message_post."""
    return check_envelope(envelope_shape().validate(data))


def check_envelope(envelope):
    """The rules across fields, on an envelope the shape has validated: profile fields only with their
    profile's kinds, a thread for every kind but an opening ask. Returns it as a CleanEnvelope."""
    kind = envelope["kind"]
    profile = profile_for_kind(kind)
    opening = opening_fields()
    for name in envelope:
        owner = next((p for p in PROFILES.values() if name in p.fields), None)
        if owner is not None and owner is not profile:
            raise InvalidBody(f"unknown field {name} for kind {kind}", field=name)
        if name in opening and (kind != "ask" or "thread" in envelope):
            raise InvalidBody(f"{name} is accepted only on an ask that opens a thread", field=name)
    if profile is not None and profile.clean:
        profile.clean(envelope)
    if "thread" not in envelope and needs_thread(kind):
        raise InvalidBody(f"{kind} needs a thread; only ask opens one", field="thread")
    if "parent" in envelope and "thread" not in envelope:
        raise InvalidBody("parent needs a thread", field="parent")
    fields = {name: value for name, value in envelope.items() if name != "from"}
    return CleanEnvelope({**fields, "extension": envelope.get("from", {}).get("extension", "")})


def title_from(body):
    """§4 [D]: a thread's title is the first line of its opening ask."""
    return body.splitlines()[0].strip()[: limit("title_max_chars")]
