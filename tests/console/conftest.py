"""Console personas: mia moderates (staff with forum.moderate_thread), rita (`staff_reader`) is
staff who may only read, tess (`token_keeper`, tests/conftest.py) keeps the tokens."""
import pytest

from tests.console.console import logged_in


@pytest.fixture
def token_console(token_keeper):
    return logged_in(token_keeper)


# The console's stages, each a state of tests/conftest.py's thread_in.
STAGES = {"open": ("open", False), "answered": ("answered", False), "proposed_close": ("closed", False),
          "confirmed_close": ("closed", True)}


@pytest.fixture
def make_thread(thread_in):
    """A new thread brought to `stage`: open, answered (bob's proposal), proposed_close (alice, the creator
    without `lock`, proposes to close: a proposal awaiting a moderator, §8) or confirmed_close (mod
    confirmed it: locked)."""

    def make(stage, title="Which queue should we use?"):
        state, confirmed = STAGES[stage]
        return thread_in(state, confirmed, title=title)

    return make


@pytest.fixture
def open_thread(make_thread):
    return make_thread("open", "Which cache should we use?")


@pytest.fixture
def answered_thread(make_thread):
    return make_thread("answered")


@pytest.fixture
def proposed_close(make_thread):
    return make_thread("proposed_close")


@pytest.fixture
def confirmed_close(make_thread):
    return make_thread("confirmed_close")
