"""The human-facing reading pages (staff only, read-only) and the thread outline they share with the
admin's thread page."""
from collections import defaultdict

from django.contrib.admin.views.decorators import staff_member_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _

from forum import selectors
from forum.actors import Actor
from parley_site.errors import NotFound
from parley_site.shapes import Ref

THREADS_PER_PAGE = 50


def thread_outline(actor, thread):
    """The thread's messages in reading order: depth-first by parent, siblings in creation order (§11).
    Each message keeps its stored `depth` for indentation."""
    children = defaultdict(list)
    for message in selectors.thread_messages(actor, thread):
        children[message.parent_id].append(message)
    outline, pending = [], list(reversed(children[None]))
    while pending:
        message = pending.pop()
        outline.append(message)
        pending.extend(reversed(children[message.pk]))
    return outline


@staff_member_required
def thread_page(request, ref):
    number = Ref("th").parse(ref)
    if number is None:
        raise Http404(_("no such thread"))
    try:
        actor = Actor.for_user(request.user)
        thread = selectors.thread_get(actor, number)
    except NotFound:
        raise Http404(_("no such thread")) from None
    return render(request, "console/thread_page.html", {
        "thread": thread, "outline": thread_outline(actor, thread),
        "history": selectors.thread_history(actor, thread)})


@staff_member_required
def thread_list_page(request):
    threads = selectors.threads_by_activity(Actor.for_user(request.user))
    page = Paginator(threads, THREADS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "console/thread_list_page.html", {"page": page})
