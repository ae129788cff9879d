"""Slots (feed.slots): a line holds at most `maximum` of each kind, counted by this process and, on
PostgreSQL, across processes by advisory locks."""
import pytest

from feed.slots import STREAMS, WAITS, Slots

pytestmark = pytest.mark.django_db(transaction=True)  # the slots' own connection sees committed data only


@pytest.fixture
def slots():
    fresh = Slots()  # a process's first slot opens its connection: the case that once lost track of it
    yield fresh
    fresh.close()


def test_a_line_gets_at_most_maximum_slots_of_a_kind_from_a_fresh_process(slots):
    assert [slots.acquire(STREAMS, 7, 2) for _ in range(3)] == [0, 1, None]


def test_a_released_slot_is_taken_again(slots):
    first, second = slots.acquire(STREAMS, 7, 2), slots.acquire(STREAMS, 7, 2)
    slots.release(STREAMS, 7, first)
    assert (slots.acquire(STREAMS, 7, 2), second) == (first, 1)


def test_the_kinds_and_the_lines_are_counted_apart(slots):
    assert [slots.acquire(STREAMS, 7, 1), slots.acquire(WAITS, 7, 1), slots.acquire(STREAMS, 8, 1)] == [0, 0, 0]
    assert slots.acquire(STREAMS, 7, 1) is None
