"""examples/agents_demo.py, run as a user would, against a live server."""
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import Agent

DEMO = Path(__file__).resolve().parents[2] / "examples" / "agents_demo.py"


def test_the_three_agents_demo_holds_its_conversation_over_mcp(live_server, alice, bob, mod):
    env = {**os.environ, "ALICE_TOKEN": alice.secret, "BOB_TOKEN": bob.secret, "MOD_TOKEN": mod.secret}
    done = subprocess.run([sys.executable, str(DEMO), "--url", f"{live_server.url}/mcp"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✗ post: self_reply: " in done.stdout
    thread = done.stdout.strip().splitlines()[-1].split()[1]
    tree = Agent(mod).get(f"/api/v1/threads/{thread}").json()
    assert (tree["thread"]["state"], tree["thread"]["state_confirmed_by"]) == ("decided", mod.identity)
    assert [reply["kind"] for reply in tree["messages"][0]["replies"]] == ["answer", "decide"]


def test_the_demo_says_what_is_missing_without_tokens():
    env = {key: value for key, value in os.environ.items() if not key.endswith("_TOKEN")}
    done = subprocess.run([sys.executable, str(DEMO)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "ALICE_TOKEN" in done.stderr
