"""Ready-to-paste MCP client set-ups for one token: what `make run` prints (via the demo command), so that a
newcomer connects Claude Code, Cursor, VS Code or a desktop host without reading a line of documentation."""
import json
import shlex
from pathlib import Path
from urllib.parse import urlsplit

SERVER_NAME = "parley"
STDIO_COMMAND = "parley_mcp_stdio"


def http_entry(url, secret):
    return {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {secret}"}}


def stdio_entry(python, manage_py, secret, database_url=None):
    """A host starts the stdio server itself, as the token's line, on the demo database (DEBUG=1 lets the
    demo start without a SECRET_KEY). A database URL is only carried along when it holds no password: the
    printed set-ups are meant to be pasted into files that may be shared."""
    env = {"PARLEY_TOKEN": secret, "DEBUG": "1"}
    if database_url:
        env["DATABASE_URL"] = database_url if urlsplit(database_url).password is None else "<the server's DATABASE_URL>"
    return {"command": str(python), "args": [str(manage_py), STDIO_COMMAND], "env": env}


def client_setups(url, secret, python, manage_py, database_url=None):
    """(title, text) for each client: Claude Code's command line, the `mcpServers` JSON of Cursor and most
    hosts, VS Code's `servers` JSON, and a stdio entry for desktop hosts (Claude Desktop and others)."""
    claude = (f"claude mcp add --transport http {SERVER_NAME} {shlex.quote(url)} "
              f"--header {shlex.quote(f'Authorization: Bearer {secret}')}")
    return [
        ("Claude Code", claude),
        ("Cursor and most hosts (mcpServers JSON, e.g. .cursor/mcp.json)",
         as_json({"mcpServers": {SERVER_NAME: http_entry(url, secret)}})),
        ("VS Code (.vscode/mcp.json)", as_json({"servers": {SERVER_NAME: http_entry(url, secret)}})),
        ("A desktop host over stdio (e.g. claude_desktop_config.json)",
         as_json({"mcpServers": {SERVER_NAME: stdio_entry(python, manage_py, secret, database_url)}})),
    ]


def as_json(value):
    return json.dumps(value, indent=2)


def printed_setups(url, secret, python, manage_py, database_url=None):
    """The set-ups as the demo command prints them: a heading per client, its text indented below."""
    blocks = []
    for title, text in client_setups(url, secret, python, Path(manage_py), database_url):
        blocks.append(f"  {title}:\n" + "\n".join(f"    {line}" for line in text.splitlines()) + "\n")
    return "MCP clients, ready to paste (this token; rules for the agent: docs/agents.md):\n\n" + "\n".join(blocks)
