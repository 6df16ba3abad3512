"""mcp 2.x's ``OpenTelemetryMiddleware`` (the first middleware of every low-level ``Server``, and
so of MCPServer) without its span where the span would be OpenTelemetry's no-op one.

Stock builds the span's name and attributes, extracts the trace context of the request's
``_meta`` and opens the span through the module's tracer for every message. With no tracer
provider configured, that tracer is the API's proxy over ``NoOpTracer``: with no parent context
in ``_meta`` and a current span that records nothing, the span it opens is the current one, made
current again, and every attribute, status and exception recorded on it is dropped
(``_engines.tracing``). Such a message goes straight to the next handler; a provider, a
recording current span or a ``traceparent`` in ``_meta`` takes stock's.
"""

from __future__ import annotations

from typing import Any

import mcp.shared._otel as _shared_otel

from .._engines.tracing import proxy_without_provider, spans_unrecorded

stock_call: Any = None  # the original, kept by install()


async def middleware_call(self: Any, ctx: Any, call_next: Any) -> Any:
    """``OpenTelemetryMiddleware.__call__``: stock's, unless its span would record nothing."""
    params = ctx.params
    if (
        (params is None or type(params) is dict)  # what stock's attribute code reads without failing
        and spans_unrecorded()
        and proxy_without_provider(_shared_otel._tracer)
        and _shared_otel.extract_trace_context(ctx.meta) is None
    ):
        return await call_next(ctx)
    return await stock_call(self, ctx, call_next)
