"""Seeds a large forum fast: rows are streamed with PostgreSQL's COPY, ids assigned here, sequences moved past
them afterwards. The rows are shaped as the services would leave them (every thread opened by an `ask` with
its `open` event; every second thread answered, its proposal pending), so every read path works on them.

Run in growing steps (`grow_to`), so the same database is measured at 10k and then at 1M messages."""
import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.db import connection, transaction

from forum.models import Token
from forum.sequences import AWAITING_SEQUENCE

BIG_THREAD_MESSAGES = 200  # read_thread is measured on a thread this long
EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)

TOKEN_COLUMNS = ["id", "handle", "identity", "label", "secret_hash", "can_read", "can_write", "can_lock",
                 "can_verify", "created_at", "write_count", "recent_writes"]
THREAD_COLUMNS = ["id", "title", "state", "state_origin", "state_confirmed_at", "state_confirmed_by",
                  "creator_identity", "creator_extension", "created_at", "updated_at", "message_count",
                  "first_message_id", "last_message_id", "awaiting_act", "awaiting_from", "awaiting_since_id",
                  "awaiting_by_identity", "awaiting_by_extension", "awaiting_seq", "loop_last", "loop_prev",
                  "loop_run"]
MESSAGE_COLUMNS = ["id", "thread_id", "parent_id", "depth", "kind", "body", "author_identity",
                   "author_extension", "author_kind", "author_label", "token_id", "awaiting", "created_at", "redacted_by"]
EVENT_COLUMNS = ["thread_id", "message_id", "from_state", "to_state", "label", "origin", "actor", "at",
                 "confirmed_at", "confirmed_by", "note"]


def bench_secret(number):
    return f"pt_bench_{number:06d}"


def identity(number):
    return f"ainotes:bench{number}"


@dataclass
class Size:
    threads: int
    messages: int
    tokens: int
    awaiting_seq: int


SIZE_SQL = ("SELECT (SELECT count(*) FROM forum_thread), (SELECT count(*) FROM forum_message), "
            "(SELECT count(*) FROM forum_token WHERE handle LIKE 'bench%%'), "
            "(SELECT COALESCE(max(awaiting_seq), 0) FROM forum_thread)")


def current_size(url=None):
    """The size of the forum in Django's database, or in the one at `url`."""
    if url is not None:
        import psycopg

        with psycopg.connect(url) as other:
            return Size(*other.execute(SIZE_SQL).fetchone())
    with connection.cursor() as cursor:
        cursor.execute(SIZE_SQL)
        return Size(*cursor.fetchone())


def copy_rows(table, columns, rows):
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def ensure_tokens(count):
    have = current_size().tokens
    if have >= count:
        return
    first_id = (Token.objects.order_by("-id").values_list("id", flat=True).first() or 0) + 1
    copy_rows("forum_token", TOKEN_COLUMNS, (
        (first_id + n, f"bench{number}", identity(number), f"bench {number}",
         Token.hash_secret(bench_secret(number)), True, True, False, False, EPOCH, 0, "[]")
        for n, number in enumerate(range(have, count))))


def thread_rows(first_thread, first_message, count, per_thread, longer, tokens, first_seq, big_first):
    """Rows for `count` threads of `per_thread` messages (the first `longer` of them one more); the first is
    BIG_THREAD_MESSAGES long when big_first. Yields
    ("thread"|"message"|"event", row) so one pass produces all three tables' rows."""
    message_id, seq = first_message, first_seq
    for offset in range(count):
        number = first_thread + offset
        length = BIG_THREAD_MESSAGES if big_first and offset == 0 else per_thread + (offset < longer)
        creator, at = number % tokens, EPOCH + timedelta(seconds=number)
        answered = number % 2 == 1 and length > 1
        first, last = message_id, message_id + length - 1
        for position in range(length):
            author = creator if position == 0 else (creator + position) % tokens
            kind = "ask" if position == 0 else ("answer" if answered and position == 1 else "note")
            yield "message", (message_id, number, None if position == 0 else first, min(position, 1), kind,
                              f"{kind} {position} of thread {number}", identity(author), "", "llm", "", None,
                              json.dumps({"act": "answer", "from": "anyone", "since": None}), at, "")
            message_id += 1
        seq += 1
        state, awaiting = ("answered", ("decision", identity(creator), first + 1)) if answered else (
            "open", ("answer", "anyone", first))
        yield "thread", (number, f"Question {number}", state, "llm", None if answered else at,
                         "" if answered else identity(creator), identity(creator), "", at, at, length, first, last,
                         awaiting[0], awaiting[1], awaiting[2], identity(creator), "", seq, "", "", 0)
        yield "event", (number, first, None, "open", "ask", "llm", identity(creator), at, at,
                        identity(creator), "")
        if answered:
            yield "event", (number, first + 1, "open", "answered", "answer", "llm",
                            identity((creator + 1) % tokens), at, None, "", "")


def grow_to(threads, messages, tokens, analyze=True):
    """Add threads and messages until the forum holds at least `threads` and `messages`; then ANALYZE what
    grew, as a bulk load should (analyze=False: leave that to jobs.statistics, to see the plans without)."""
    ensure_tokens(tokens)
    size = current_size()
    new_threads = threads - size.threads
    if new_threads <= 0:
        return current_size()
    big_first = size.threads == 0
    extra = BIG_THREAD_MESSAGES - 1 if big_first else 0
    per_thread, longer = divmod(max(new_threads, messages - size.messages - extra), new_threads)
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(max(id), 0) FROM forum_message")
        first_message = cursor.fetchone()[0] + 1
        cursor.execute("SELECT COALESCE(max(id), 0) FROM forum_thread")
        first_thread = cursor.fetchone()[0] + 1
    with transaction.atomic():  # the thread -> message foreign keys are checked at commit (deferred)
        _copy_all(thread_rows(first_thread, first_message, new_threads, per_thread, longer, tokens,
                              size.awaiting_seq, big_first))
    _move_sequences()
    if analyze:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE forum_thread; ANALYZE forum_message; ANALYZE forum_stateevent")
    return current_size()


def _copy_all(rows):
    """One COPY streams at a time on a connection: stream the messages, buffer threads and events."""
    buffered = {"thread": [], "event": []}
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY forum_message ({', '.join(MESSAGE_COLUMNS)}) FROM STDIN") as copy:
            for table, row in rows:
                if table == "message":
                    copy.write_row(row)
                else:
                    buffered[table].append(row)
    copy_rows("forum_thread", THREAD_COLUMNS, buffered["thread"])
    copy_rows("forum_stateevent", EVENT_COLUMNS, buffered["event"])


def _move_sequences():
    with connection.cursor() as cursor:
        for table in ("forum_token", "forum_thread", "forum_message", "forum_stateevent"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                           f"(SELECT COALESCE(max(id), 1) FROM {table}))")
        cursor.execute(f"SELECT setval('{AWAITING_SEQUENCE}', (SELECT COALESCE(max(awaiting_seq), 1) "
                       "FROM forum_thread))")
