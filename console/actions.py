"""The moderators' actions on threads. Each one calls a service as `human:<username>` (§7 rule 4) through
the console's door (console.door), which counts it and reports thread by thread what happened."""
from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _, gettext_lazy

from console.door import act
from console.forms import MarkForm
from forum import operations, services
from forum.actors import Actor
from forum.envelope import clean_envelope
from parley_site.errors import InvalidBody


def state_text(thread):
    if thread.is_pending:
        return _("the thread is %(state)s (proposed)") % {"state": thread.state}
    return _("the thread is %(state)s (confirmed by %(moderator)s)") % {
        "state": thread.state, "moderator": thread.state_confirmed_by}


def thread_subject(thread_id):
    return _("Thread th_%(thread)s") % {"thread": thread_id}


def post_as_human(modeladmin, request, raw_envelope):
    """Post an envelope as the human, validated like any agent's, and report it."""
    actor = Actor.for_user(request.user)
    return act(
        modeladmin, request, "post", thread_subject(raw_envelope["thread"]),
        lambda: services.message_post(actor, clean_envelope(raw_envelope)),
        lambda result: _("%(kind)s posted as msg_%(message)s; %(state)s") % {
            "kind": result[0].kind, "message": result[0].pk, "state": state_text(result[1])})


SETTLED = {"confirm": gettext_lazy("confirmed; %(state)s"), "dismiss": gettext_lazy("dismissed; %(state)s")}


def checked_reason(operation, reason, **arguments):
    """A reason the moderator typed, judged by the operation's own input shape, as over REST and MCP
    (§17: 1-500 characters); "" for none."""
    if reason:
        arguments["reason"] = reason
    return operation.input().validate(arguments).get("reason", "")


def confirm_or_dismiss(modeladmin, request, operation, thread_id, reason=""):
    """`confirm` or `dismiss` (with an optional reason) the thread's pending proposal (§8) as the human,
    and report it."""
    actor = Actor.for_user(request.user)
    if operation == "confirm":
        def run():
            return services.state_confirm(actor, thread_id)
    else:
        def run():
            return services.state_dismiss(actor, thread_id, checked_reason(operations.DISMISS, reason,
                                                                           thread=thread_id))
    return act(modeladmin, request, operation, thread_subject(thread_id), run,
                          lambda thread: SETTLED[operation] % {"state": state_text(thread)})


def redact_as_human(modeladmin, request, thread_id, message_id, reason):
    """Redact a message of the thread (§17) as the human, with an optional reason, and report it."""
    actor = Actor.for_user(request.user)

    def run():
        return services.message_redact(actor, message_id, checked_reason(operations.REDACT, reason,
                                                                         message=message_id))
    return act(modeladmin, request, "redact", thread_subject(thread_id), run,
                          lambda result: _("msg_%(message)s redacted; %(state)s") % {
                              "message": message_id, "state": state_text(result[1])})


def selected_ids(queryset):
    return list(queryset.order_by("pk").values_list("pk", flat=True))


def proposal_action(operation, description):
    def action(modeladmin, request, queryset):
        for thread_id in selected_ids(queryset):
            confirm_or_dismiss(modeladmin, request, operation, thread_id)

    action.__name__ = operation
    return admin.action(description=description, permissions=["moderate"])(action)


def mark_action(kind, description, default_body):
    """A bulk mark. Every mark is a message (§5), so the moderator first writes its body on an
    intermediate page; the body goes through the envelope validator like any agent's."""
    def action(modeladmin, request, queryset):
        thread_ids = selected_ids(queryset)
        form = MarkForm(request.POST if "apply" in request.POST else None, initial={"body": default_body})
        if form.is_valid():
            envelopes = [{"kind": kind, "thread": thread_id, "body": form.cleaned_data["body"]}
                         for thread_id in thread_ids]
            try:
                # The body is the same for every thread: a bad one is corrected once, here.
                for envelope in envelopes:
                    clean_envelope(envelope)
            except InvalidBody as refusal:
                form.add_error("body", f"{refusal.reason}: {refusal.message}")
            else:
                for envelope in envelopes:
                    post_as_human(modeladmin, request, envelope)
                return None
        return TemplateResponse(request, "admin/forum/thread/mark_action.html", {
            **modeladmin.admin_site.each_context(request), "opts": modeladmin.model._meta, "title": description,
            "kind": kind, "form": form, "threads": queryset.order_by("pk"), "action": action.__name__,
        })

    action.__name__ = f"mark_{kind}"
    return admin.action(description=description, permissions=["moderate"])(action)


# The default bodies are the moderator's words, offered in their language to be posted or changed.
THREAD_ACTIONS = [
    proposal_action("confirm", gettext_lazy("Confirm the pending proposal")),
    proposal_action("dismiss", gettext_lazy("Dismiss the pending proposal")),
    mark_action("close", gettext_lazy("Close"), gettext_lazy("Closed by the moderator.")),
    mark_action("reopen", gettext_lazy("Reopen"), gettext_lazy("Reopened by the moderator.")),
    mark_action("decide", gettext_lazy("Mark decided"), gettext_lazy("Decided by the moderator.")),
    mark_action("defer", gettext_lazy("Defer"), gettext_lazy("Deferred by the moderator.")),
    mark_action("obsolete", gettext_lazy("Mark obsolete"), gettext_lazy("Marked obsolete by the moderator.")),
    mark_action("reject", gettext_lazy("Reject"), gettext_lazy("Rejected by the moderator.")),
]
