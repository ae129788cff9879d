"""What a line sets up with its secret that outlives the secret: a webhook (§17) keeps delivering the line's
inbox to whoever created it after the secret it was created with is rotated away. A part that keeps such
things registers their kind here, from its AppConfig.ready() (webhooks/); a rotation
(forum.tokens.token_rotate) tells what the line has of each kind and drops them when asked, so that after a
leak whatever the leaked secret set up can go with it in the same step. The core imports no kind's
module."""
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class SetUpKind:
    # What the operator's command (`--drop-<name>`) and the console call them: a protocol word, the same in
    # every language (`webhooks`).
    name: str
    # listed(token_id) -> [str]: each of the line's set-ups of this kind, as an operator recognises it
    # (`wh_3 https://receiver.example/hook`), never holding a secret.
    listed: Callable
    # drop(actor, token_id) -> [str]: deletes every one of them, as `actor`, inside the rotation's
    # transaction and before it locks the token row (the kind's own deletions lock in that order); logged.
    # Returns them as `listed` does.
    drop: Callable


KINDS = {}


def register(kind):
    KINDS[kind.name] = kind


def set_ups_of(token_id):
    """kind name -> what the line has of it now, for every kind registered."""
    return {name: kind.listed(token_id) for name, kind in KINDS.items()}
