"""The MCP server: the official SDK's lowlevel `Server` (`mcp` 2.x), which speaks both eras of Parley v1 §2
(the modern one, `server/discover` and the revision on every request, and the `initialize` handshake) on
every transport it is given: streamable HTTP (mcp_bridge.http) and stdio (`parley_mcp_stdio`).

Its handlers are thin doors. Each runs Parley's sync code (mcp_bridge.tools, mcp_bridge.resources) as a
Django view runs (mcp_bridge.context)."""
import inspect
import logging

from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, DiscoverResult, RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from forum.dispatch import OPERATIONS
from forum.profiles import PROFILES
from mcp_bridge import resources, tools
from mcp_bridge.context import caller, in_request_thread
from mcp_bridge.held_stream import holding
from mcp_bridge.instructions import INSTRUCTIONS
from mcp_bridge.listen import listen
from parley_site import __version__

logger = logging.getLogger("parley.mcp")


# The revision of 2026-07-28 has every cacheable result say how long it stays fresh and for whom (§2). What
# does not vary by caller, and changes only with a deploy, is anyone's for five minutes; a read is stale at
# once (it changes with the next post) and the caller's own (rights differ by token).
SHARED = CacheHint(ttl_ms=300_000, scope="public")
OWN = CacheHint(ttl_ms=0, scope="private")
CACHE_HINTS = {"server/discover": SHARED, "tools/list": SHARED, "resources/templates/list": SHARED,
               "resources/list": OWN, "resources/read": OWN}
# §2: each profile the server runs is an MCP extension (SEP-2133) of this prefix; none is ever required.
EXTENSION_PREFIX = "io.parley/"


def complete(result):
    """A whole result (2026-07-28's `resultType`; the SDK drops it for the handshake era)."""
    return {**result, "resultType": "complete"}


def profile_extensions():
    """The profiles registered (forum.profiles), each as an extension a client may use, in name order."""
    return {f"{EXTENSION_PREFIX}{name}": {"version": "1", "required": False} for name in sorted(PROFILES)}


async def discover(ctx, params):
    """`server/discover` (2026-07-28): the capabilities the SDK derives from the handlers, and the profiles
    as extensions. Only this era's: the handshake's `initialize` answers its capabilities as before."""
    capabilities = SERVER.get_capabilities(extensions=profile_extensions(), protocol_version=ctx.protocol_version)
    return DiscoverResult(supported_versions=list(MODERN_PROTOCOL_VERSIONS), capabilities=capabilities,
                          instructions=SERVER.instructions)


async def list_tools(ctx, params):
    """In the order the operations are declared (the core's, then each profile's), the same for every caller
    and every process, as a result that caches are told to share must be."""
    return complete({"tools": tools.tool_list()})


async def call_tool(ctx, params):
    """`tools/call`, through mcp_bridge.tools.call_tool: the one place an MCP tool call runs. A call held
    open (`wait`, §16) waits here, on the event loop, holding no thread and no database connection."""
    raw = ctx.params or {}
    result = await in_request_thread(tools.call_tool, dict(raw), caller)
    if inspect.isawaitable(result):
        async with holding(raw):  # a stream of heartbeats meanwhile, where the client accepts one (§2)
            result = await result
    return complete(result)


async def list_resources(ctx, params):
    return complete({"resources": resources.RESOURCES})


async def list_resource_templates(ctx, params):
    return complete({"resourceTemplates": resources.TEMPLATES})


async def read_resource(ctx, params):
    """`resources/read` (mcp_bridge.resources)."""
    return complete(await in_request_thread(resources.read, params.uri, caller))


async def faults_leak_nothing(ctx, call_next):
    """An unexpected fault is logged and answered -32603 "internal error" with nothing else: the SDK's
    handshake-era dispatcher would send the exception's own text (code 0) to the client."""
    try:
        return await call_next(ctx)
    except (MCPError, ValidationError):
        raise
    except Exception:  # noqa: BLE001 - a real fault: logged, answered without details
        logger.exception("MCP %s failed", ctx.method)
        raise MCPError(INTERNAL_ERROR, "internal error") from None


async def arguments_as_sent(ctx, call_next):
    """Parley v1 §2: arguments that do not fit a tool are a refusal (`isError`, `invalid_body`), so a model
    can correct itself. The SDK checks `tools/call` params against its own types before any handler runs,
    and answers arguments that are not an object with JSON-RPC -32602; here they reach the tool instead."""
    raw = ctx.params
    if ctx.method == "tools/call" and isinstance(raw, dict) and isinstance(raw.get("name"), str) \
            and raw.get("arguments") is not None and not isinstance(raw["arguments"], dict):
        return complete(await in_request_thread(tools.call_tool, dict(raw), caller))
    return await call_next(ctx)


def tool_input_schema(name):
    """For the SDK's check of `Mcp-Param-*` headers (2026-07-28): the schema `tools/list` shows for that
    tool, built for it alone; an unknown tool is left to the call, which answers -32602."""
    operation = OPERATIONS.get(name)
    return None if operation is None else tools.input_schema(operation)


SERVER = Server(
    "parley", version=__version__, title="Parley", instructions=INSTRUCTIONS,
    get_tool_input_schema=tool_input_schema, cache_hints=CACHE_HINTS,
    on_list_tools=list_tools, on_call_tool=call_tool,
    on_list_resources=list_resources, on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource, on_subscriptions_listen=listen,
)
SERVER.add_request_handler("server/discover", RequestParams, discover)
SERVER.middleware += [faults_leak_nothing, arguments_as_sent]
