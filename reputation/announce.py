"""Writes that can change an outcome queue a refresh of the records they touch, in their own transaction
(forum.announce; registered in ReputationConfig.ready()): a post that recorded a claim's event (assert,
attest, verify, refute, supersede), a move (its claims change room, so scope), a redaction (an erased
statement's digest no longer overturns a refutation), and with the input
`proposals` a confirm or dismiss. Deciding is in memory: a write that touches no claim costs no query."""
from forum.announce import listen
from reputation.settings import parameters
from reputation.tasks import refresh


def posted(announcement):
    claims = sorted({event.claim_number for event in announcement.events if event.claim_number is not None})
    if claims:
        refresh.enqueue(claims=claims)


def moved(announcement):
    refresh.enqueue(threads=[announcement.thread.pk], marks=parameters().proposals)


def redacted(announcement):
    if announcement.message.kind != "assert":  # only an assert's claim has a statement digest to erase
        return
    refresh.enqueue(threads=[announcement.thread.pk], rooms=[announcement.thread.room_number])


def decided(announcement):
    if parameters().proposals:
        refresh.enqueue(threads=[announcement.thread.pk], marks=True)


def connect():
    listen("post", posted)
    listen("move", moved)
    listen("redact", redacted)
    listen("confirm", decided)
    listen("dismiss", decided)
