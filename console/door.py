"""The console's door: every action a human takes in it (a thread's actions, a claim's verify and refute,
an artifact's redaction) runs one service call through `act`, counted at door `admin` (parley_site.doors)
and reported on the page, what went through as the action says, a refusal with the reason and message the
API gives (§13), never a crash."""
from django.contrib import messages
from django.utils.translation import gettext as _

from parley_site.doors import Door


# The reason and the refusal's message stay as the API gives them (§13): they are what a client matches on.
def refusal_text(subject, refusal):
    detail = ", ".join(f"{name}={value}" for name, value in refusal.detail.items())
    text = _("%(subject)s: refused — %(reason)s: %(message)s") % {
        "subject": subject, "reason": refusal.reason, "message": refusal.message}
    return text + (f" ({detail})" if detail else "")


def act(modeladmin, request, operation, subject, run, done):
    """Run `run()`, the console's call of §12 `operation` on `subject` (what the report names: a thread,
    a claim, an artifact), and report it: `done(result)` says what happened. Returns its result, or None
    when it was refused."""
    def reported(result):
        modeladmin.message_user(request, _("%(subject)s: %(outcome)s") % {
            "subject": subject, "outcome": done(result)}, messages.SUCCESS)
        return result

    def refused(error):
        modeladmin.message_user(request, refusal_text(subject, error), messages.ERROR)
    return Door("admin", refuse=refused, answer=reported).run(operation, run)
