"""fastmcp 4.x's server spans (the request's seam span and each component's server span) in its
own ``propagation_only`` mode where, in its default ``native`` mode, they would be OpenTelemetry's
no-op spans.

For every request, ``native`` builds each span's attributes (the protocol, the caller's token,
the session id), gets a tracer through the API and opens the span, twice. With no tracer
provider configured, no parent context in the request's ``_meta`` and a current span that
records nothing, those spans are the current one made current again, and everything recorded on
them is dropped (``_engines.tracing``); fastmcp's ``propagation_only`` makes no span and
attaches nothing, or the current context again, when the request carries no parent context:
what its tools, its propagation and an exporter see is the same. So ``telemetry_mode`` as fastmcp's server spans read it says
``propagation_only`` there; a provider, a recording current span, a parent context or another
mode gives stock's answer. Decided on every call: a provider set later is used at once.
"""

from __future__ import annotations

from typing import Any

import fastmcp.server.telemetry as _server_telemetry
from opentelemetry import context as otel_context

from .._engines.tracing import spans_unrecorded

stock_telemetry_mode: Any = None  # the original, kept by install()


def telemetry_mode() -> Any:
    """``telemetry_mode`` as read by ``fastmcp.server.telemetry``'s spans."""
    mode = stock_telemetry_mode()
    if mode == "native" and spans_unrecorded():
        # No parent, or the current context itself (fastmcp's answer for a _meta with no trace
        # context in it): a parent extracted from _meta is attached whole by propagation_only,
        # but only its span by native's no-op span; that takes stock's.
        parent = _server_telemetry._get_parent_trace_context()
        if parent is None or parent is otel_context.get_current():
            return "propagation_only"
    return mode
