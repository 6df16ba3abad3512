"""fastmcp 4.x's read of a session's visibility rules (``get_visibility_rules``), skipped where
the key it reads was made for that read and so cannot hold anything.

Every ``tools/call`` (and every list, resource or prompt lookup) reads the session's rules from
the server's state store under ``"<session id>:_visibility_rules"``: through key_value's
beartype-checked pydantic adapter, about 15% of a 2025-era stateless weather call in process
(0.04-0.07 ms). On a 2025-era stateless request the session id does not exist yet at that
read: the connection has none, the request carries no ``mcp-session-id`` header, and nothing
has asked for it, so stock's key computation makes it there, a new ``uuid4``, and caches it on
the connection. A key nobody could know before that moment holds nothing in fastmcp's default
store (key_value's ``MemoryStore``, exactly that class, where a missing key reads ``None`` and
nothing else happens): the rules are ``[]``. Here neither the read nor the id is made: the
first to ask for the id (``Context.session_id``: a tool, its state, a span) makes and caches it
as stock's read would have, a random id either way; where nobody asks, the request ends without
one (its connection is its own and goes with it). The id alone is 14-17 us of a 500 us call in
process.

Anything else takes stock's read: a session (its id may have rules), a header, an id already
asked for in the request (someone may have written under it), a 2026-07-28 request (its key is
the caller's identity), a store passed in (it may count, log or fail), a subclass of
``Context`` or a ``_state_store`` of the server's own, ``uuid.uuid4`` replaced (the id may
repeat), fastmcp 4.0 (whose read goes through ``Context.get_state``) and a server whose store
was never used (stock creates it).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any

from fastmcp.server.transforms import visibility as _visibility

stock_get_visibility_rules: Callable[[Any], Any] | None = None  # set by install()
_UUID4 = uuid.uuid4
# fastmcp 4.1+ keys the rules by the session id as below (4.0 reads them through get_state).
_KEYED = hasattr(_visibility, "_visibility_rules_key")
_PREFIX = "_fastmcp_state_prefix"  # where Context.session_id caches the id it made


@functools.cache
def _names() -> tuple[Any, Any]:
    """fastmcp's ``Context`` and ``FastMCP._state_store`` (the property). Imported on first use:
    this module is loaded with the visibility module, which fastmcp's server and context modules
    import while they are being imported."""
    from fastmcp.server.context import Context
    from fastmcp.server.server import FastMCP

    return Context, FastMCP.__dict__["_state_store"]


@functools.cache
def _memory_store() -> type:
    """The store class fastmcp creates on first use (imported once a store exists)."""
    from key_value.aio.stores.memory import MemoryStore

    return MemoryStore


def _key_is_new(context: Any) -> bool:
    """Whether stock's key computation for ``context`` will make a new session id: the steps of
    ``Context.session_id`` up to its ``uuid4()``, each found empty, on a 2025-era request whose
    server reads from a default store."""
    context_class, state_store = _names()
    if type(context) is not context_class or uuid.uuid4 is not _UUID4 or context._is_modern_protocol():
        return False
    request_ctx = context.request_context
    if request_ctx is None:
        return False
    session = request_ctx.session
    connection = getattr(session, "_connection", None)
    if (
        connection is None
        or connection.session_id is not None
        or connection.state.get(_PREFIX) is not None
        or getattr(session, _PREFIX, None) is not None
    ):
        return False
    request = request_ctx.request
    if request and request.headers.get("mcp-session-id") is not None:
        return False
    server = context._fastmcp()
    if server is None or type(server)._state_store is not state_store:
        return False
    storage = server._state_storage
    return storage is not None and type(storage) is _memory_store()


async def get_visibility_rules(context: Any) -> list[dict[str, Any]]:
    """``get_visibility_rules``: ``[]`` without the store read where the key is new (above)."""
    assert stock_get_visibility_rules is not None
    if _KEYED and _key_is_new(context):
        return []
    rules: list[dict[str, Any]] = await stock_get_visibility_rules(context)
    return rules
