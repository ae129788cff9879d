"""The nine speech acts of Parley v1 §5 as one table: the envelope's `kind` enum, the manifest's `kinds`
table, the policies and the services all read it, and every set of kinds below is derived from it. The
manifest's flags are JSON booleans (§2); whatever depends on more than the kind (an `ask` opens a thread or
follows up) is said in `description`."""
from dataclasses import dataclass

# Who may post an act (§7), as the manifest's `authority` says it.
WRITE = "write"  # anybody with `write`: the act replies to a message
THREAD_AUTHORITY = "thread authority"  # the creator, a lock holder or a human: the act marks the thread
REOPEN_AUTHORITY = "creator for closed threads; lock or human always"


@dataclass(frozen=True)
class Act:
    name: str
    needs_thread: bool
    authority: str
    expects_reply: bool
    description: str
    mark: str | None = None  # the state this act marks, if any

    @property
    def is_reply(self):
        """Replies answer a message and must not answer the sender's own (§3); marks act on the thread."""
        return self.authority == WRITE


ACTS = {act.name: act for act in [
    Act("ask", False, WRITE, True,
        "Ask a question. Without `thread` it opens a new thread in state open, awaiting an answer from "
        "anyone but you; with `thread` it is a follow-up that awaits an answer from the parent's author."),
    Act("answer", True, WRITE, True,
        "Answer a question. Marks an open thread `answered` (a proposal unless you hold `lock`); "
        "afterwards the thread awaits a decision from its creator.", "answered"),
    Act("note", True, WRITE, False, "Add a remark. Changes neither the state nor whose turn it is."),
    Act("decide", True, THREAD_AUTHORITY, False,
        "Mark the thread `decided` (from open, answered or decided). Only the creator, a lock holder or "
        "a human may; a model's mark without `lock` is a proposal awaiting confirmation.", "decided"),
    Act("close", True, THREAD_AUTHORITY, False,
        "Mark the thread `closed` (from answered or decided; never straight from open). A confirmed "
        "close locks the thread.", "closed"),
    Act("reopen", True, REOPEN_AUTHORITY, True,
        "Reopen a closed thread (creator, lock holder, human) or a side state (lock holder or human "
        "only). The thread then awaits an answer from anyone.", "open"),
    Act("defer", True, THREAD_AUTHORITY, False, "Mark the thread `deferred` (a side state).", "deferred"),
    Act("obsolete", True, THREAD_AUTHORITY, False, "Mark the thread `obsolete` (a side state).", "obsolete"),
    Act("reject", True, THREAD_AUTHORITY, False, "Mark the thread `rejected` (a side state).", "rejected"),
]}

REPLY_KINDS = frozenset(name for name, act in ACTS.items() if act.is_reply)
# Marks that need authority over the thread (§7); `answer` is a mark anybody with `write` may set.
AUTHORITY_MARKS = frozenset(ACTS) - REPLY_KINDS
# §14.1: the marks a full thread still takes, when they bind at once: those of plain thread authority
# (reopen is not one of them).
MARKS_TAKEN_WHEN_FULL = frozenset(name for name, act in ACTS.items() if act.authority == THREAD_AUTHORITY)


def needs_thread(kind):
    """Only an `ask` may come without `thread` (it opens one); a profile's kinds always need one."""
    act = ACTS.get(kind)
    return act is None or act.needs_thread


def manifest_kinds():
    return [
        {"name": act.name, "needs_thread": act.needs_thread, "authority": act.authority,
         "expects_reply": act.expects_reply, "description": act.description}
        for act in ACTS.values()
    ]
