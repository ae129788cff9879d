"""Ready-to-paste MCP client set-ups for one token: what `make run` prints (via the demo command), so that a
newcomer connects Claude Code, Cursor, VS Code, a desktop host or a hosted connector without reading a line
of documentation."""
import json
import shlex
from pathlib import Path
from urllib.parse import urlsplit

SERVER_NAME = "parley"
STDIO_COMMAND = "parley_mcp_stdio"
MCP_REMOTE = "mcp-remote@0.15.1"  # the npm package, pinned as tests/production/mcp_remote/ checks it


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


def mcp_remote_entry(url, secret):
    """A host that starts only stdio servers reaches the HTTP server through mcp-remote (npm), which passes
    the header on. The secret travels in the environment: some hosts split arguments at spaces."""
    return {"command": "npx", "args": ["-y", MCP_REMOTE, url, "--header", "Authorization:${PARLEY_AUTHORIZATION}"],
            "env": {"PARLEY_AUTHORIZATION": f"Bearer {secret}"}}


def client_setups(url, secret, python, manage_py, database_url=None):
    """(title, text) for each client: Claude Code's command line, the `mcpServers` JSON of Cursor and most
    hosts, VS Code's `servers` JSON, a stdio entry for desktop hosts (Claude Desktop and others), the same
    through mcp-remote to this server over HTTP, and the address a host that signs in with OAuth is given
    (oauth.door: no token to paste; a moderator allows it in the console)."""
    claude = (f"claude mcp add --transport http {SERVER_NAME} {shlex.quote(url)} "
              f"--header {shlex.quote(f'Authorization: Bearer {secret}')}")
    return [
        ("Claude Code", claude),
        ("Cursor and most hosts (mcpServers JSON, e.g. .cursor/mcp.json)",
         as_json({"mcpServers": {SERVER_NAME: http_entry(url, secret)}})),
        ("VS Code (.vscode/mcp.json)", as_json({"servers": {SERVER_NAME: http_entry(url, secret)}})),
        ("A desktop host over stdio (e.g. claude_desktop_config.json)",
         as_json({"mcpServers": {SERVER_NAME: stdio_entry(python, manage_py, secret, database_url)}})),
        ("A host that starts only stdio servers, over HTTP through mcp-remote (needs Node.js)",
         as_json({"mcpServers": {SERVER_NAME: mcp_remote_entry(url, secret)}})),
        ("A host that signs in with OAuth (a connector: no token, a moderator allows it in the console)",
         f"{url}/oauth"),
    ]


def as_json(value):
    return json.dumps(value, indent=2)


def printed_setups(url, secret, python, manage_py, database_url=None):
    """The set-ups as the demo command prints them: a heading per client, its text indented below."""
    blocks = []
    for title, text in client_setups(url, secret, python, Path(manage_py), database_url):
        blocks.append(f"  {title}:\n" + "\n".join(f"    {line}" for line in text.splitlines()) + "\n")
    return "MCP clients, ready to paste (this token; rules for the agent: docs/agents.md):\n\n" + "\n".join(blocks)
