"""The nine speech acts of Parley v1 §5 as data: the envelope's `kind` enum, the manifest's `kinds`
table and the services all read this one table. The manifest's flags are JSON booleans (§2); whatever
depends on more than the kind (an `ask` opens a thread or follows up) is said in `description`."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Act:
    name: str
    needs_thread: bool
    authority: str
    expects_reply: bool
    description: str
    mark: str | None = None  # the state this act marks, if any


ACTS = {act.name: act for act in [
    Act("ask", False, "write", True,
        "Ask a question. Without `thread` it opens a new thread in state open, awaiting an answer from "
        "anyone but you; with `thread` it is a follow-up that awaits an answer from the parent's author."),
    Act("answer", True, "write", True,
        "Answer a question. Marks an open thread `answered` (a proposal unless you hold `lock`); "
        "afterwards the thread awaits a decision from its creator.", "answered"),
    Act("note", True, "write", False, "Add a remark. Changes neither the state nor whose turn it is."),
    Act("decide", True, "thread authority", False,
        "Mark the thread `decided` (from open, answered or decided). Only the creator, a lock holder or "
        "a human may; a model's mark without `lock` is a proposal awaiting confirmation.", "decided"),
    Act("close", True, "thread authority", False,
        "Mark the thread `closed` (from answered or decided; never straight from open). A confirmed "
        "close locks the thread.", "closed"),
    Act("reopen", True, "creator for closed threads; lock or human always", True,
        "Reopen a closed thread (creator, lock holder, human) or a side state (lock holder or human "
        "only). The thread then awaits an answer from anyone.", "open"),
    Act("defer", True, "thread authority", False, "Mark the thread `deferred` (a side state).", "deferred"),
    Act("obsolete", True, "thread authority", False, "Mark the thread `obsolete` (a side state).", "obsolete"),
    Act("reject", True, "thread authority", False, "Mark the thread `rejected` (a side state).", "rejected"),
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
