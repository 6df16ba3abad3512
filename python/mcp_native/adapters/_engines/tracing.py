"""Whether a span an SDK opens now would be OpenTelemetry's no-op one.

With no tracer provider configured, the API's tracers are proxies over ``NoOpTracer``, whose
``start_as_current_span`` returns the current span when it records nothing (or, when it is given
a context, that context's span) and makes it current again: with no parent context from the
request and a non-recording current span, the span opened, its attributes and the context made
current change nothing a handler, a propagator or an exporter sees. The per-request work of
building them can go; anything else (a provider, a recording current span, a parent context in
the request) takes the SDK's own path.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, ProxyTracerProvider


def spans_unrecorded() -> bool:
    """True when no tracer provider is configured and the current span records nothing."""
    # Asked only where the SDK is about to open a span, whose tracer asks the same: a provider
    # named by OTEL_PYTHON_TRACER_PROVIDER is loaded here at the moment stock's would load it.
    return type(trace.get_tracer_provider()) is ProxyTracerProvider and isinstance(
        trace.get_current_span(), NonRecordingSpan
    )


def proxy_without_provider(tracer: object) -> bool:
    """True when ``tracer`` is the API's proxy and has not bound a provider's tracer (a proxy made
    before a provider was set keeps the tracer it bound, even if the global is reset later)."""
    return type(tracer) is trace.ProxyTracer and getattr(tracer, "_real_tracer", True) is None
