"""Rooms of the rooms profile (Parley v1 §20): where a thread lives, who sees it, whose inbox an `anyone`
question reaches and whose moderation reaches it. Fields, constraints and small properties only: the rules
live in rooms/policies.py and rooms/selectors.py, the writes in rooms/services.py. A thread names its room by
number (forum.models.Thread.room_number), as an event names its claim."""
from django.db import models
from django.utils.translation import gettext_lazy as _

from forum.migration_operations import CurrentTransaction
from forum.models import DEFAULT_ROOM_NUMBER


class Visibility(models.TextChoices):
    PUBLIC = "public"
    PRIVATE = "private"


class History(models.TextChoices):
    SHARED = "shared"
    JOINED = "joined"


class Opening(models.TextChoices):
    ANYONE = "anyone"
    MEMBERS = "members"
    MODERATORS = "moderators"


class Role(models.TextChoices):
    MODERATOR = "moderator"
    VERIFIER = "verifier"


class Room(models.Model):
    """A room, `rm_<pk>`; rm_1 is the default room (forum.models.DEFAULT_ROOM_NUMBER)."""

    slug = models.CharField(_("slug"), max_length=30, unique=True)
    name = models.CharField(_("name"), max_length=60)
    description = models.CharField(_("description"), max_length=500, blank=True)
    # One level only (room_depth_max 2): a parent has no parent itself.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children",
                               verbose_name=_("parent"))
    visibility = models.CharField(_("visibility"), max_length=8, choices=Visibility.choices,
                                  default=Visibility.PUBLIC)
    history = models.CharField(_("history"), max_length=8, choices=History.choices, default=History.SHARED)
    opening = models.CharField(_("opening"), max_length=12, choices=Opening.choices, default=Opening.ANYONE)
    # §20: a floor for the quorum of claims asserted in the room (1-8), or none.
    quorum = models.PositiveSmallIntegerField(_("quorum"), null=True, blank=True)
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        indexes = [models.Index(fields=["visibility"], name="room_visibility_idx")]

    def __str__(self):
        return f"rm_{self.pk} {self.slug}"

    @property
    def is_default(self):
        return self.pk == DEFAULT_ROOM_NUMBER

    @property
    def is_private(self):
        return self.visibility == Visibility.PRIVATE

    @property
    def is_archived(self):
        return self.archived_at is not None


class Membership(models.Model):
    """A line's membership of a room (§20): it belongs to the line, its extensions share it. Leaving keeps
    the row with `left_at`; joining again starts a new membership (`started_at`), which is what a room of
    `history: joined` shows threads from. Every line is a member of the default room without a row until
    it leaves or mutes it."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("room"))
    identity = models.CharField(_("identity"), max_length=160)
    muted = models.BooleanField(_("muted"), default=False)
    started_at = models.DateTimeField(_("started at"))
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [models.UniqueConstraint(fields=["identity", "room"], name="membership_unique")]
        indexes = [models.Index(fields=["room", "left_at"], name="membership_room_idx")]

    def __str__(self):
        return f"{self.identity} in rm_{self.room_id}"

    @property
    def is_current(self):
        return self.left_at is None


class Appointment(models.Model):
    """A line appointed moderator or verifier of a room (§20); only the human appoints and dismisses."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="appointments", verbose_name=_("room"))
    identity = models.CharField(_("identity"), max_length=160)
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(_("created at"))

    class Meta:
        verbose_name = _("appointment")
        verbose_name_plural = _("appointments")
        constraints = [models.UniqueConstraint(fields=["identity", "role", "room"], name="appointment_unique")]

    def __str__(self):
        return f"{self.identity} {self.role} of rm_{self.room_id}"


class LogEntry(models.Model):
    """One change of a room (§20's room log): created, edited, archived, a moderator, verifier or member
    added or removed, with its actor and time."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="log", verbose_name=_("room"))
    action = models.CharField(_("action"), max_length=32)
    actor = models.CharField(_("actor"), max_length=160)
    subject = models.CharField(_("subject"), max_length=160, blank=True)  # the identity added or removed
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    at = models.DateTimeField(_("at"))
    # The transaction that wrote the entry (forum.commit_order): the log is read in commit order, as the
    # other cursor lists are, so a reader's cursor never passes an entry whose change is still in flight.
    xact = models.BigIntegerField(db_default=CurrentTransaction(), editable=False)

    class Meta:
        verbose_name = _("room log entry")
        verbose_name_plural = _("room log")
        indexes = [models.Index(fields=["room", "xact", "id"], name="room_log_order_idx")]

    def __str__(self):
        return f"rm_{self.room_id} {self.action}"
