"""Template helpers of the console and the reading pages."""
from django import template
from django.urls import reverse

from console.filters import QUEUE_PARAMETER
from forum.selectors import moderation_queue_size

register = template.Library()


@register.inclusion_tag("admin/forum/moderation_queue.html")
def moderation_queue():
    """The moderation queue, one click from the admin index, with its size: threads whose state is a
    proposal awaiting confirmation or dismissal (§8), and full threads not yet ended (§14.1)."""
    return {"size": moderation_queue_size(),
            "url": f"{reverse('admin:forum_thread_changelist')}?{QUEUE_PARAMETER}=yes"}


@register.inclusion_tag("console/_author.html")
def author(message):
    """§3: a lock holder shows as `KI · <label>`, a human as `human:<name>`, with the extension."""
    return {"message": message}
