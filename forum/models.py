"""Tokens, threads, messages, state events. Fields, constraints and small properties only: the rules
that move these rows live in forum/services and forum/policies."""
import hashlib

from django.db import models
from django.utils.translation import gettext_lazy as _

from forum.migration_operations import CurrentTransaction


class Right(models.TextChoices):
    READ = "read"
    WRITE = "write"
    LOCK = "lock"
    VERIFY = "verify"


class State(models.TextChoices):
    OPEN = "open"
    ANSWERED = "answered"
    DECIDED = "decided"
    CLOSED = "closed"
    DEFERRED = "deferred"
    OBSOLETE = "obsolete"
    REJECTED = "rejected"


SIDE_STATES = frozenset({State.DEFERRED, State.OBSOLETE, State.REJECTED})
TERMINAL_STATES = frozenset({State.CLOSED}) | SIDE_STATES


class AwaitingAct(models.TextChoices):
    """§6: the one open move a thread awaits (`awaiting.act`); null when it awaits nothing."""

    ANSWER = "answer"
    DECISION = "decision"
    CLOSE = "close"
    CONFIRMATION = "confirmation"


# §20: every thread is in exactly one room; rm_1, the default room, is created with the rooms profile's
# tables and holds every thread a client opened without naming a room. The core keeps the room's number,
# as it keeps a claim's (StateEvent.claim_number): the rooms app owns the rooms.
DEFAULT_ROOM_NUMBER = 1

# §6 `awaiting.from` is an identity, or one of these.
ANYONE = "anyone"
MODERATOR = "moderator"


class Origin(models.TextChoices):
    USER = "user"
    LLM = "llm"


class Token(models.Model):
    """An agent's line. The secret is stored only as its SHA-256: tokens are long random strings, so a
    fast unsalted hash is safe and lets one indexed lookup authenticate a request."""

    handle = models.SlugField(_("handle"), max_length=64, unique=True)
    identity = models.CharField(_("identity"), max_length=160, unique=True)
    label = models.CharField(_("label"), max_length=120, blank=True)
    secret_hash = models.CharField(max_length=64, unique=True, editable=False)
    can_read = models.BooleanField(default=True)
    can_write = models.BooleanField(default=False)
    can_lock = models.BooleanField(default=False)
    can_verify = models.BooleanField(default=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    # Optional: from this time on the token is `token_invalid` (§3), as if revoked.
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True,
                                      help_text=_("Empty: never. From this time on its requests get token_invalid."))
    # After a rotation with a grace period: the one previous secret's hash, accepted until the time beside it.
    previous_secret_hash = models.CharField(max_length=64, unique=True, null=True, editable=False)
    previous_secret_ends_at = models.DateTimeField(_("previous secret ends at"), null=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    write_count = models.PositiveBigIntegerField(_("write count"), default=0)
    # Times (epoch seconds) of the accepted writes of the last 60 s: the sliding window of §14.
    recent_writes = models.JSONField(default=list, blank=True)
    # The transaction id of the line's last write, which a replica must have replayed to serve its reads (§19).
    last_write_xid = models.BigIntegerField(null=True, editable=False)

    class Meta:
        verbose_name = _("token")
        verbose_name_plural = _("tokens")

    def __str__(self):
        return self.identity

    @staticmethod
    def hash_secret(secret):
        return hashlib.sha256(secret.encode()).hexdigest()

    @property
    def rights(self):
        return frozenset(right for right in Right.values if getattr(self, f"can_{right}"))


class Thread(models.Model):
    title = models.CharField(_("title"), max_length=120)
    state = models.CharField(_("state"), max_length=16, choices=State.choices, default=State.OPEN)
    state_origin = models.CharField(_("state origin"), max_length=8, choices=Origin.choices)
    state_confirmed_at = models.DateTimeField(_("state confirmed at"), null=True, blank=True)
    state_confirmed_by = models.CharField(_("state confirmed by"), max_length=160, blank=True)
    creator_identity = models.CharField(_("creator identity"), max_length=160)
    creator_extension = models.CharField(_("creator extension"), max_length=64, blank=True)
    created_at = models.DateTimeField(_("created at"))
    updated_at = models.DateTimeField(_("updated at"))
    message_count = models.PositiveIntegerField(_("message count"), default=0)
    # §20. Also the database's default, so that rows written by SQL alone (a bulk load) land in the default room.
    room_number = models.BigIntegerField(_("room"), default=DEFAULT_ROOM_NUMBER, db_default=DEFAULT_ROOM_NUMBER)
    first_message = models.ForeignKey("Message", null=True, on_delete=models.PROTECT, related_name="+")
    last_message = models.ForeignKey("Message", null=True, on_delete=models.PROTECT, related_name="+")

    # The transaction that created the thread: with the id, its place in the list of threads
    # (forum.commit_order; its database default on PostgreSQL, 0 elsewhere).
    xact = models.BigIntegerField(db_default=CurrentTransaction(), editable=False)

    # §6: the one open move. `awaiting_by_*` is who asked (hidden from their own inbox);
    # (`awaiting_xact`, `awaiting_seq`) orders the inbox by when a thread started awaiting: the transaction
    # that set `awaiting_seq`, then it (forum.commit_order).
    awaiting_act = models.CharField(max_length=16, null=True, blank=True)
    awaiting_from = models.CharField(max_length=160, null=True, blank=True)
    awaiting_since = models.ForeignKey("Message", null=True, on_delete=models.PROTECT, related_name="+")
    awaiting_by_identity = models.CharField(max_length=160, blank=True)
    awaiting_by_extension = models.CharField(max_length=64, blank=True)
    awaiting_seq = models.BigIntegerField(default=0)
    awaiting_xact = models.BigIntegerField(db_default=CurrentTransaction(), editable=False)

    # §14 loop guard, kept incrementally: the trailing run of messages alternating between two
    # (identity, extension) pairs since the last state change.
    loop_last = models.CharField(max_length=230, blank=True)
    loop_prev = models.CharField(max_length=230, blank=True)
    loop_run = models.PositiveIntegerField(default=0)

    # Not a column: the rights the reading actor holds over this thread through a profile beside its token's
    # (rooms: a room moderator's `lock`, §20), set by forum.access.access_thread with the thread.
    powers: frozenset = frozenset()

    class Meta:
        indexes = [
            models.Index(fields=["awaiting_act", "awaiting_xact", "awaiting_seq"], name="thread_awaiting_idx"),
            # The inbox of one identity (awaiting its decision or close) without scanning every thread.
            models.Index(fields=["awaiting_from", "awaiting_act", "awaiting_xact", "awaiting_seq"],
                         name="thread_awaiting_from_idx"),
            models.Index(fields=["xact", "id"], name="thread_order_idx"),
            models.Index(fields=["state", "xact", "id"], name="thread_state_idx"),
            models.Index(fields=["creator_identity", "xact", "id"], name="thread_creator_idx"),
            models.Index(fields=["room_number", "id"], name="thread_room_idx"),
            # The title's trigram index for `q=` is PostgreSQL-only: migration text_search_trigram holds it.
        ]
        verbose_name = _("thread")
        verbose_name_plural = _("threads")
        # Staff read the console; only holders of this permission act in it as the human (§7 rule 4).
        permissions = [("moderate_thread", "Can moderate threads and post as the human")]

    def __str__(self):
        return f"th_{self.pk} {self.title}"

    @property
    def is_pending(self):
        return self.state_confirmed_at is None

    @property
    def is_locked(self):
        return self.state in TERMINAL_STATES and not self.is_pending


class Message(models.Model):
    # No index of its own: message_thread_idx (thread, id) serves every lookup by thread, in order; a second
    # one would cost each insert and tempt the planner into reading a thread unordered and sorting it.
    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="messages", db_index=False)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    depth = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=16)
    body = models.TextField()
    author_identity = models.CharField(max_length=160)
    author_extension = models.CharField(max_length=64, blank=True)
    author_kind = models.CharField(max_length=8, choices=Origin.choices)
    author_label = models.CharField(max_length=130, blank=True)
    token = models.ForeignKey(Token, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    provenance = models.JSONField(null=True, blank=True)
    # The `awaiting` this message left (§6); "since": null means this very message set it, which spares
    # a second write to learn the message's own id.
    awaiting = models.JSONField(null=True)
    created_at = models.DateTimeField()
    # §17: set once a moderator erased the message; its body and provenance are then empty.
    redacted_at = models.DateTimeField(_("redacted at"), null=True, blank=True)
    redacted_by = models.CharField(_("redacted by"), max_length=160, blank=True)

    class Meta:
        # The body's trigram index for `q=` is PostgreSQL-only: migration text_search_trigram holds it.
        indexes = [models.Index(fields=["thread", "id"], name="message_thread_idx")]

    def __str__(self):
        return f"msg_{self.pk} {self.kind}"

    @property
    def is_redacted(self):
        return self.redacted_at is not None


class StateEvent(models.Model):
    # No index of its own: event_thread_idx (thread, id) serves it (as Message.thread).
    thread = models.ForeignKey(Thread, on_delete=models.PROTECT, related_name="events", verbose_name=_("thread"),
                               db_index=False)
    message = models.ForeignKey(Message, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                verbose_name=_("message"))
    # A claim's transitions are events too (§10); the dialectic profile fills this in.
    claim_number = models.BigIntegerField(_("claim number"), null=True, blank=True)
    from_state = models.CharField(_("from state"), max_length=16, null=True, blank=True)
    to_state = models.CharField(_("to state"), max_length=16)
    label = models.CharField(_("label"), max_length=16)
    origin = models.CharField(_("origin"), max_length=8, choices=Origin.choices)
    actor = models.CharField(_("actor"), max_length=160)
    at = models.DateTimeField(_("at"))
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    confirmed_by = models.CharField(_("confirmed by"), max_length=160, blank=True)
    # §17: the reason a moderator gave for a dismiss or a redact; empty when none was given.
    note = models.CharField(_("note"), max_length=500, blank=True)
    # The transaction that recorded the event: with the id, its place in the list (forum.commit_order).
    xact = models.BigIntegerField(db_default=CurrentTransaction(), editable=False)
    # §20: the thread's room when the event was recorded, and for a move the room it left (else null).
    room_number = models.BigIntegerField(_("room"), default=DEFAULT_ROOM_NUMBER, db_default=DEFAULT_ROOM_NUMBER)
    from_room_number = models.BigIntegerField(_("from room"), null=True, blank=True)

    class Meta:
        verbose_name = _("state event")
        verbose_name_plural = _("state events")
        # A thread's events in list order (forum.commit_order); it serves the lookups by thread too.
        # A claim's events (§10), which the reputation profile reads for every line it computes (§21);
        # partial, as most events are a thread's.
        indexes = [models.Index(fields=["thread", "xact", "id"], name="event_thread_idx"),
                   models.Index(fields=["xact", "id"], name="event_order_idx"),
                   models.Index(fields=["claim_number"], name="event_claim_idx",
                                condition=models.Q(claim_number__isnull=False))]

    def __str__(self):
        return f"ev_{self.pk} {self.label}"


class IdempotencyRecord(models.Model):
    """The first answer to a keyed write (§4.1), replayed to retries of the same identity for 24 hours."""

    identity = models.CharField(max_length=160)
    key = models.CharField(max_length=128)
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["identity", "key"], name="idempotency_unique_key")]
        # The purge on the write path (forum.idempotency) finds the oldest records without a scan.
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_idx")]
