"""fastmcp 4.x's server spans (the request's seam span and each component's server span) in its
own ``propagation_only`` mode where, in its default ``native`` mode, they would be OpenTelemetry's
no-op spans.

For every request, ``native`` builds each span's attributes (the protocol, the caller's token,
the session id), gets a tracer through the API and opens the span, twice. With no tracer
provider configured, no trace context in the request's ``_meta`` and a current span that records
nothing, those spans are the current one made current again, and everything recorded on them is
dropped (``_engines.tracing``); fastmcp's ``propagation_only`` makes no span and attaches nothing,
or the current context again: what its tools, its propagation and an exporter see is the same.
So ``telemetry_mode`` as fastmcp's server spans read it says ``propagation_only`` there; a
provider, a recording current span, a trace context in ``_meta`` or another mode gives stock's
answer. Decided on every call: a provider set later is used at once.
"""

from __future__ import annotations

from typing import Any

from fastmcp.server.dependencies import fastmcp_request_ctx
from fastmcp.telemetry import TRACE_PARENT_KEY, TRACE_STATE_KEY

from .._engines.tracing import spans_unrecorded

stock_telemetry_mode: Any = None  # the original, kept by install()


def telemetry_mode() -> Any:
    """``telemetry_mode`` as read by ``fastmcp.server.telemetry``'s spans."""
    mode = stock_telemetry_mode()
    if mode == "native" and spans_unrecorded() and not _meta_carries_trace():
        return "propagation_only"
    return mode


def _meta_carries_trace() -> bool:
    """Whether the request's ``_meta`` holds a trace context. Without one, fastmcp's parent for
    the request (``_get_parent_trace_context``) is None or the current context, which
    ``propagation_only`` attaches again. With one, it may be a parent extracted from ``_meta``,
    which ``propagation_only`` would attach whole and native's no-op span only its span: stock's.
    Read here rather than by extracting the parent, which ``propagation_only`` does next: one
    extraction per span, as stock."""
    request = fastmcp_request_ctx.get()
    meta = request.meta if request is not None else None
    return meta is not None and (TRACE_PARENT_KEY in meta or TRACE_STATE_KEY in meta)
