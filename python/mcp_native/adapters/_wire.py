"""The SDK's JSON-RPC message models to and from mcp-native's wire types, shared by the
transports."""

from __future__ import annotations

from typing import Any, Self

import anyio
import mcp_types

from .. import jsonrpc


def sdk_message(item: jsonrpc.Message) -> mcp_types.JSONRPCMessage:
    """The SDK's model of a decoded message, built without validating again (the decoder has
    checked the envelope exactly as the models would, and params/result are any JSON object)."""
    if type(item) is jsonrpc.Request:
        if item.params is None:
            return mcp_types.JSONRPCRequest.model_construct(jsonrpc="2.0", id=item.id, method=item.method)
        return mcp_types.JSONRPCRequest.model_construct(
            jsonrpc="2.0", id=item.id, method=item.method, params=item.params
        )
    if type(item) is jsonrpc.Notification:
        if item.params is None:
            return mcp_types.JSONRPCNotification.model_construct(jsonrpc="2.0", method=item.method)
        return mcp_types.JSONRPCNotification.model_construct(jsonrpc="2.0", method=item.method, params=item.params)
    if type(item) is jsonrpc.Response:
        return mcp_types.JSONRPCResponse.model_construct(jsonrpc="2.0", id=item.id, result=item.result)
    assert type(item) is jsonrpc.ErrorResponse
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=item.id, error=mcp_types.ErrorData.model_validate(item.error))


def encode(message: mcp_types.JSONRPCMessage) -> bytes:
    """One wire line. Results are plain JSON once the server has shaped them and go out through
    the native encoder; anything it cannot write (a value JSON has no form for, which pydantic
    may still serialize) and the rarer message kinds take the SDK's own serialization."""
    if type(message) is mcp_types.JSONRPCResponse:
        try:
            return jsonrpc.encode_response(message.id, message.result)
        except (TypeError, ValueError):
            pass
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


class ReceiveStream:
    """What a session expects of a receive stream beside ``receive()`` and ``close()``, which a
    subclass defines: ``aclose``, iteration that ends at ``EndOfStream``, and ``async with``
    that closes it."""

    __slots__ = ()

    async def receive(self) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()
