"""Template helpers of the console and the reading pages."""
from django import template
from django.urls import reverse

from console.access import can_act_as_human
from console.filters import queue_summary
from forum import cursors
from forum.selectors import event_head

register = template.Library()


@register.inclusion_tag("admin/forum/moderation_queue.html", takes_context=True)
def moderation_queue(context):
    """The moderation queue, one click from the admin index, with its size: threads whose state is a
    proposal awaiting confirmation or dismissal (§8), and full threads not yet ended (§14.1), as the signed-in
    user reads it (console.filters.queue_threads: a room moderator, the rooms it moderates)."""
    return queue_summary(context["request"].user)


@register.inclusion_tag("console/_queue_count.html", takes_context=True)
def queue_count(context):
    """The queue's size in the header of every console page, kept current by console/live.js."""
    return queue_summary(context["request"].user)


@register.inclusion_tag("console/_live.html", takes_context=True)
def live(context):
    """The page's live indicator and what console/live.js needs: the feed's event stream (§16), which the
    staff session reads as a token would (forum.api.authentication), from the events of this very render on
    (so nothing that happens while the page loads is missed); the page's thread if it shows one (other
    threads' events only update the queue count); and where the count alone is fetched."""
    thread = context.get("thread")
    return {
        "stream_url": f"{reverse('event_stream')}?since={cursors.encode('events', event_head())}",
        "thread_ref": f"th_{thread.pk}" if thread is not None else "",
        "count_url": reverse("admin:forum_thread_queue_count"),
    }


@register.simple_tag(takes_context=True)
def can_moderate(context):
    """Whether the signed-in user moderates (console.access: the one rule, also the digests' rule)."""
    request = context.get("request")
    return request is not None and can_act_as_human(request.user)


@register.inclusion_tag("console/_author.html")
def author(message):
    """§3: a lock holder shows as `KI · <label>`, a human as `human:<name>`, with the extension."""
    return {"message": message}
