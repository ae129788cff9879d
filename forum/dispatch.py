"""The dispatcher of Parley v1 §12's operations: what an operation is (`Operation`), the registry the doors
find them in (`OPERATIONS`, filled by `register`), and `call`, the one path every door runs an operation
by. The core's own operations are declared in forum.operations, a profile's in its own module."""
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from forum.actors import Actor
from forum.held import Held
from forum.idempotency import run_idempotent
from forum.own_writes import read_for
from parley_site.shapes import Obj


@dataclass(frozen=True, kw_only=True)
class Operation:
    name: str  # also its MCP tool's name
    http: str
    # The description and the output schema may be functions, built when read: profiles register their
    # kinds and shapes in AppConfig.ready(), after this module is imported (as `input` is a function).
    description: str | Callable[[], str]
    input: Callable[[], Obj]  # built per call: profiles and limits are read when apps are ready
    output: dict | Callable[[], dict]
    # (actor, validated arguments) -> the answer's body, an Answer, or a forum.held.Held
    run: Callable[[Actor | None, dict], Any]
    read_only: bool = True
    destructive: bool = False  # a write that erases what was stored (redact) rather than adding to it
    needs_actor: bool = True
    status: int = 200  # the HTTP status of an answer
    # Keys of a write's answer given once and never replayed (a webhook's secret, §17): an idempotent
    # retry answers without them, and no idempotency record keeps them.
    shown_once: tuple[str, ...] = ()
    # (actor) -> None, run for a write before its transaction and its replay, committed on its own: what
    # must stand when the write is refused and rolled back (a webhook creation counted against its cap, §17).
    admit: Callable[[Actor], None] | None = None

    @property
    def description_text(self) -> str:
        return self.description() if callable(self.description) else self.description

    @property
    def output_schema(self) -> dict:
        return self.output() if callable(self.output) else self.output


@dataclass(frozen=True)
class Answer:
    """What a run answers when its status depends on what it found: an upload is 201 for new bytes, 200
    for bytes stored already (§18)."""
    status: int
    body: dict


OPERATIONS: dict[str, Operation] = {}


def register(operation: Operation) -> Operation:
    OPERATIONS[operation.name] = operation
    return operation


def call(operation, actor, arguments, idempotency_key=None):
    """Run `operation` for `actor` with raw JSON `arguments`: the one path of every door, which counts it
    (parley_site.doors). Returns (status, body); for a call that holds (§16), an awaitable of them, which the
    door awaits on the server's event loop. A keyed write is replayed before its arguments are even read
    (§13)."""
    if not operation.read_only:
        if operation.admit is not None:
            operation.admit(actor)
        if idempotency_key is not None:
            return run_idempotent(actor, idempotency_key, operation.name, arguments,
                                  partial(_answer, operation, actor, arguments), operation.shown_once)
        return _answer(operation, actor, arguments)
    return read_for(actor, partial(_answer, operation, actor, arguments))  # perhaps on a replica (§19)


def _answer(operation, actor, arguments):
    result = operation.run(actor, operation.input().validate(arguments))
    if isinstance(result, Held):
        return _held(operation.status, result)
    if isinstance(result, Answer):
        return result.status, result.body
    return operation.status, result


async def _held(status, held):
    """The seam of a call that holds: only here is a forum.held.Held known, and awaited."""
    return status, await held.page()
