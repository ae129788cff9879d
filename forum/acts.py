"""The nine speech acts of PROTOCOL.md §5 as data: the envelope's `kind` enum, the manifest's `kinds`
table and the services all read this one table."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Act:
    name: str
    needs_thread: str
    authority: str
    expects_reply: bool
    description: str
    mark: str | None = None  # the state this act marks, if any


ACTS = {act.name: act for act in [
    Act("ask", "no (opens a thread) / yes (follow-up)", "write", True,
        "Ask a question. Without `thread` it opens a new thread in state open; with `thread` it is a "
        "follow-up that awaits an answer from the parent's author."),
    Act("answer", "yes", "write", True,
        "Answer a question. Marks an open thread `answered` (a proposal unless you hold `lock`); "
        "afterwards the thread awaits a decision from its creator.", "answered"),
    Act("note", "yes", "write", False, "Add a remark. Changes neither the state nor whose turn it is."),
    Act("decide", "yes", "thread authority", False,
        "Mark the thread `decided` (from open, answered or decided). Only the creator, a lock holder or "
        "a human may; a model's mark without `lock` is a proposal awaiting confirmation.", "decided"),
    Act("close", "yes", "thread authority", False,
        "Mark the thread `closed` (from answered or decided; never straight from open). A confirmed "
        "close locks the thread.", "closed"),
    Act("reopen", "yes", "creator for closed threads; lock or human always", True,
        "Reopen a closed thread (creator, lock holder, human) or a side state (lock holder or human "
        "only). The thread then awaits an answer from anyone.", "open"),
    Act("defer", "yes", "thread authority", False, "Mark the thread `deferred` (a side state).", "deferred"),
    Act("obsolete", "yes", "thread authority", False, "Mark the thread `obsolete` (a side state).", "obsolete"),
    Act("reject", "yes", "thread authority", False, "Mark the thread `rejected` (a side state).", "rejected"),
]}

# Replies must not answer the sender's own message (§3); marks act on the thread and are not replies.
REPLY_KINDS = frozenset({"ask", "answer", "note"})
# Marks that need authority over the thread (§7); `answer` is a mark anybody with `write` may set.
AUTHORITY_MARKS = frozenset({"decide", "close", "defer", "obsolete", "reject", "reopen"})


def manifest_kinds():
    return [
        {"name": act.name, "needs_thread": act.needs_thread, "authority": act.authority,
         "expects_reply": act.expects_reply, "description": act.description}
        for act in ACTS.values()
    ]
