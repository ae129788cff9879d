"""The moderators' claims console (§10): claims listed and filtered by state and certainty, a claim page
with its proofs as links and its whole history, and the human's `verify` and `refute`, posted through the
one service path as `human:<username>`."""
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _, gettext_lazy

from console.access import StaffReadOnly
from console.door import act
from dialectic.forms import ClaimActForm
from dialectic.models import Claim, ClaimAct, ClaimActKind
from dialectic.policies import CERTAINTY, certainty, is_expired
from dialectic.selectors import certainty_filter
from forum import services
from forum.access import visible_q
from forum.actors import Actor
from forum.envelope import clean_envelope
from parley_site.errors import InvalidBody

# The human's acts: each one's default body (the moderator's words, in their language) and its page title.
HUMAN_ACTS = {"verify": gettext_lazy("Verified by the moderator."),
              "refute": gettext_lazy("Refuted by the moderator.")}
ACT_TITLES = {"verify": gettext_lazy("Verify as the human"), "refute": gettext_lazy("Refute as the human")}


# kind -> show(proof, note) -> HTML: how a profile that holds what a kind of proof points at shows it
# (evidence: the artifact itself). Added from the profile's admin module (show_proofs_of).
PROOF_VIEWS = {}


def show_proofs_of(kind, show):
    PROOF_VIEWS[kind] = show


def proof_links(proofs):
    """Proofs as a list, URLs as links (they are validated absolute http(s) URLs, §10), all escaped."""
    if not proofs:
        return "—"
    return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((proof_item(p),) for p in proofs)))


def proof_item(proof):
    note = format_html(" — {}", proof["note"]) if proof.get("note") else ""
    if proof["kind"] in PROOF_VIEWS:
        return PROOF_VIEWS[proof["kind"]](proof, note)
    if proof["kind"] == "url":
        return format_html('url: <a href="{}" rel="noreferrer noopener" target="_blank">{}</a>{}',
                           proof["ref"], proof["ref"], note)
    return format_html("{}: <code>{}</code>{}", proof["kind"], proof["ref"], note)


class CertaintyFilter(admin.SimpleListFilter):
    title = gettext_lazy("certainty")
    parameter_name = "certainty"

    def lookups(self, request, model_admin):
        return [(name, name) for name in reversed(CERTAINTY)]

    def queryset(self, request, queryset):
        if self.value() in CERTAINTY:
            return queryset.filter(certainty_filter(self.value(), timezone.now()))
        return queryset


class ClaimActInline(admin.TabularInline):
    """The claim's attestations, refutation and seal: history, shown and never edited."""

    model = ClaimAct
    fields = ["kind", "identity", "extension", "proofs", "seals", "at", "message"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    @admin.display(description=gettext_lazy("proof"))
    def proofs(self, act):
        return proof_links(act.proof)


class ClaimAdmin(StaffReadOnly, admin.ModelAdmin):
    # Claims are born from `assert` and move only through posted acts: nothing here edits a row.
    list_display = ["ref", "statement", "thread", "asserted_identity", "state", "certainty_column", "expired"]
    list_display_links = ["ref", "statement"]
    list_filter = ["state", CertaintyFilter]
    list_select_related = ["thread"]
    search_fields = ["statement", "asserted_identity"]
    ordering = ["-id"]
    fields = ["ref", "statement", "thread", "message", "asserted_identity", "asserted_extension", "state",
              "certainty_column", "quorum", "verification_list", "valid_until", "expired", "proof_list",
              "superseded_by", "supersedes_list", "created_at", "updated_at"]
    readonly_fields = fields
    inlines = [ClaimActInline]
    actions = ["verify", "refute"]
    change_form_template = "admin/dialectic/claim/change_form.html"

    def get_queryset(self, request):
        # The claims of the threads the staff user may see (forum.access, §20: a private room's only for who
        # sees the room), in the list and on a claim's page alike.
        return super().get_queryset(request).filter(visible_q(Actor.for_user(request.user), "thread__"))

    @admin.display(description=gettext_lazy("id"), ordering="pk")
    def ref(self, claim):
        return f"cl_{claim.pk}"

    @admin.display(description=gettext_lazy("certainty"))
    def certainty_column(self, claim):
        return certainty(claim.state, is_expired(claim.valid_until, timezone.now()))

    @admin.display(description=gettext_lazy("expired"), boolean=True)
    def expired(self, claim):
        return is_expired(claim.valid_until, timezone.now())

    @admin.display(description=gettext_lazy("quorum"))
    def quorum(self, claim):
        """§18: how many distinct lines have verified it, of how many it needs."""
        return _("%(have)d of %(need)d lines") % {"have": claim.acts.filter(kind=ClaimActKind.VERIFY).count(),
                                                  "need": claim.quorum_need}

    @admin.display(description=gettext_lazy("verifications"))
    def verification_list(self, claim):
        verifications = claim.acts.filter(kind=ClaimActKind.VERIFY).order_by("pk")
        return format_html_join(", ", "{}{} at {}{}", (
            (act.identity, f"/{act.extension}" if act.extension else "", act.at.isoformat(timespec="seconds"),
             _(" (sealed)") if act.seals else "") for act in verifications)) or "—"

    @admin.display(description=gettext_lazy("proofs"))
    def proof_list(self, claim):
        return proof_links(claim.proofs)

    @admin.display(description=gettext_lazy("supersedes"))
    def supersedes_list(self, claim):
        return ", ".join(f"cl_{old.pk}" for old in claim.supersedes.order_by("pk")) or "—"

    # --- the human's acts ------------------------------------------------------------------------------
    @admin.action(description=gettext_lazy("Verify (seal) the selected claims"), permissions=["moderate"])
    def verify(self, request, queryset):
        return self.act_view(request, "verify", queryset)

    @admin.action(description=gettext_lazy("Refute the selected claims (with a proof)"), permissions=["moderate"])
    def refute(self, request, queryset):
        return self.act_view(request, "refute", queryset)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        act_url = path("<int:claim_id>/act/<str:kind>/", wrap(self.single_act_view), name="dialectic_claim_act")
        return [act_url, *super().get_urls()]

    def single_act_view(self, request, claim_id, kind):
        """The claim page's buttons: the same form as the list's actions, for one claim."""
        if kind not in HUMAN_ACTS or not self.has_moderate_permission(request):
            raise PermissionDenied
        claims = Claim.objects.filter(visible_q(Actor.for_user(request.user), "thread__"), pk=claim_id)
        return self.act_view(request, kind, claims) or redirect(
            reverse("admin:dialectic_claim_change", args=[claim_id]))

    def act_view(self, request, kind, queryset):
        """Ask for the body and proof, check them once like any envelope, then post the act on each claim
        and report claim by claim. Returns the form page, or None once the acts are posted."""
        claims = list(queryset.order_by("pk"))
        form = ClaimActForm(request.POST if "apply" in request.POST else None, initial={"body": HUMAN_ACTS[kind]})
        if form.is_valid() and claims:
            try:
                clean_envelope(form.envelope(kind, claims[0]))  # the same body and proof for every claim
            except InvalidBody as refusal:
                form.add_refusal(refusal)
            else:
                for claim in claims:
                    self.post_act(request, form.envelope(kind, claim))
                return None
        return TemplateResponse(request, "admin/dialectic/claim/act.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta, "kind": kind, "form": form,
            "claims": claims, "title": ACT_TITLES[kind]})

    def post_act(self, request, envelope):
        actor = Actor.for_user(request.user)
        act(self, request, "post", f"cl_{envelope['claim']}",
            lambda: services.message_post(actor, clean_envelope(envelope))[2],
            lambda claim: _("%(kind)s posted; the claim is %(state)s") % {"kind": envelope["kind"],
                                                                           "state": claim.state})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {"can_moderate": self.has_moderate_permission(request), "human_acts": ACT_TITLES,
                         **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context)


admin.site.register(Claim, ClaimAdmin)
