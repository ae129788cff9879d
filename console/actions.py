"""The moderators' actions on threads. Each one calls a service as `human:<username>` (§7 rule 4) and
reports thread by thread what happened; a refusal is shown with the reason the API gives, never a crash."""
import time

from django.contrib import admin, messages
from django.template.response import TemplateResponse

from console.forms import MarkForm
from forum import operations, services
from forum.actors import Actor
from forum.envelope import clean_envelope
from parley_site import metrics
from parley_site.errors import InvalidBody, ParleyError


def refusal_text(thread_id, refusal):
    detail = ", ".join(f"{name}={value}" for name, value in refusal.detail.items())
    return f"Thread th_{thread_id}: refused — {refusal.reason}: {refusal.message}" + (f" ({detail})" if detail else "")


def state_text(thread):
    how = "proposed" if thread.is_pending else f"confirmed by {thread.state_confirmed_by}"
    return f"the thread is {thread.state} ({how})"


def run_and_report(modeladmin, request, operation, thread_id, run, done):
    """Run one service call, the console's door to §12 `operation`, count it and report it. Returns its
    result, or None when it was refused."""
    started = time.perf_counter()
    try:
        result = run()
    except Exception as exc:
        metrics.observe(operation, "admin", metrics.outcome_of(exc), started)
        if not isinstance(exc, ParleyError):
            raise
        modeladmin.message_user(request, refusal_text(thread_id, exc), messages.ERROR)
        return None
    metrics.observe(operation, "admin", "ok", started)
    modeladmin.message_user(request, f"Thread th_{thread_id}: {done(result)}", messages.SUCCESS)
    return result


def post_as_human(modeladmin, request, raw_envelope):
    """Post an envelope as the human, validated like any agent's, and report it."""
    actor = Actor.for_user(request.user)
    return run_and_report(
        modeladmin, request, "post", raw_envelope["thread"],
        lambda: services.message_post(actor, clean_envelope(raw_envelope)),
        lambda result: f"{result[0].kind} posted as msg_{result[0].pk}; {state_text(result[1])}")


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
    return run_and_report(modeladmin, request, operation, thread_id, run,
                          lambda thread: f"{operation}ed; {state_text(thread)}")


def redact_as_human(modeladmin, request, thread_id, message_id, reason):
    """Redact a message of the thread (§17) as the human, with an optional reason, and report it."""
    actor = Actor.for_user(request.user)

    def run():
        return services.message_redact(actor, message_id, checked_reason(operations.REDACT, reason,
                                                                         message=message_id))
    return run_and_report(modeladmin, request, "redact", thread_id, run,
                          lambda result: f"msg_{message_id} redacted; {state_text(result[1])}")


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


THREAD_ACTIONS = [
    proposal_action("confirm", "Confirm the pending proposal"),
    proposal_action("dismiss", "Dismiss the pending proposal"),
    mark_action("close", "Close", "Closed by the moderator."),
    mark_action("reopen", "Reopen", "Reopened by the moderator."),
    mark_action("decide", "Mark decided", "Decided by the moderator."),
    mark_action("defer", "Defer", "Deferred by the moderator."),
    mark_action("obsolete", "Mark obsolete", "Marked obsolete by the moderator."),
    mark_action("reject", "Reject", "Rejected by the moderator."),
]
