"""Which notes (feed.notify) may concern a follower of a list: a prefilter only. A woken follower re-reads
through the list's selector, which alone decides what it sees."""
from forum.policies import inbox_senders


def concerns(topic):
    """note -> may it concern a follower of a forum.listings.Listing with this topic?"""
    if topic[0] == "events":
        thread_id = topic[1]
        return lambda note: note["kind"] == "event" and thread_id in (None, note["thread"])
    _, identity, awaiting = topic
    # Only a thread that now awaits `awaiting` from a sender of the caller's inbox can have entered it.
    senders = inbox_senders(identity, awaiting)
    return lambda note: note["kind"] == "thread" and note["act"] == awaiting and note["from"] in senders
