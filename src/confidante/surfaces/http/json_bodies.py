"""Every `/v1` body is JSON, whatever the client said.

`curl -d` sends `application/x-www-form-urlencoded`, and many clients send no Content-Type
at all; answering those with a validation error about dictionaries helps nobody. So a body
without a Content-Type, or with curl's form type or text/plain, is read as JSON, and an empty
body as `{}`. Any other media type (a multipart upload, XML) is refused with a message that
names the header.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_response

READ_AS_JSON = {b"", b"application/x-www-form-urlencoded", b"text/plain", b"application/json"}


def media_type(scope: Scope) -> bytes:
    for name, value in scope["headers"]:
        if name == b"content-type":
            return value.split(b";")[0].strip().lower()
    return b""


class JsonBodies:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not scope["path"].startswith("/v1/")
            or scope["method"] not in ("POST", "PUT", "PATCH")
        ):
            await self.app(scope, receive, send)
            return
        kind = media_type(scope)
        if kind not in READ_AS_JSON and not kind.endswith(b"+json"):
            response = error_response(
                415,
                "unsupported_media_type",
                "send the body as JSON with Content-Type: application/json",
            )
            await response(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-type"]
        headers.append((b"content-type", b"application/json"))
        first = True

        async def empty_is_an_object() -> Message:
            nonlocal first
            message = await receive()
            if first and message["type"] == "http.request":
                first = False
                if not message.get("body") and not message.get("more_body", False):
                    message = {**message, "body": b"{}"}
            return message

        await self.app({**scope, "headers": headers}, empty_is_an_object, send)
