"""What the SDK-based API adapters (openai_api, anthropic_api) share: the client's life for
one run, and one request sent through the SDK with its body read under a byte cap.

    SdkAgent.run(request)   import the SDK, build its async client (no SDK retries: they
                            belong to api_common.Loop), refuse a non-loopback endpoint when
                            model requests are off, run the Loop with the adapter's Wire
    SdkWire.send(body)      POST through `<resource>.with_streaming_response.create`; the
                            SDK's status and connection errors become HttpFailure

Each adapter keeps its own wire format (bodies, parsing, follow-ups) and says only how to
build its client and which SDK resource takes the request. The SDK is passed in as a module
object: nothing here imports a vendor SDK by name.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from contend.agents import api_common as common
from contend.agents.base import AgentReply, AgentRequest
from contend.agents.repo_tools import RepoTools
from contend.errors import UserError

if TYPE_CHECKING:
    from contend.agents.prices import ModelPrice


class SdkWire:
    """Sends one request body through an SDK resource (`client.chat.completions`,
    `client.messages`) and reads the answer under a byte cap."""

    def __init__(self, sdk: Any, client: Any, model: str, max_bytes: int) -> None:
        self.sdk = sdk
        self.client = client
        self.model = model
        self.max_bytes = max_bytes

    def resource(self) -> Any:
        """The SDK object whose `with_streaming_response.create(**body)` sends a request."""
        raise NotImplementedError

    async def send(self, body: dict[str, Any], timeout_s: float) -> common.RawResponse:
        # The SDK's HTTP library: the SDK wraps its errors until the response starts, but a
        # connection that drops while the body is read raises httpx2's own error.
        import httpx2

        sdk = self.sdk
        try:
            async with self.resource().with_streaming_response.create(
                **body, timeout=timeout_s
            ) as response:
                data, oversized = await common.read_capped(response.iter_bytes(), self.max_bytes)
                return common.RawResponse(response.http_response.status_code, data, oversized)
        except sdk.APIStatusError as exc:
            raise common.HttpFailure(
                f"HTTP {exc.status_code}: {exc.message}",
                status=exc.status_code,
                retry_after=common.retry_after_seconds(exc.response.headers),
                body=_body_text(exc.body),
            ) from exc
        except sdk.APIConnectionError as exc:  # includes the SDK's own timeout
            raise common.HttpFailure(f"connection failed: {exc}", status=None) from exc
        except httpx2.RequestError as exc:
            raise common.HttpFailure(
                f"connection failed while reading the response: {exc}",
                status=None,
                failure="malformed",
            ) from exc


class SdkAgent:
    """An API-model agent whose conversation runs through a vendor SDK. Subclasses set
    `backend`, `model`, `family`, `capabilities`, and say how to build the client."""

    backend: str
    model: str
    vendor: str  # as the SDK's name reads in messages: "OpenAI", "Anthropic"
    max_file_bytes: int
    limits: common.Limits
    price: ModelPrice | None

    def import_sdk(self) -> Any:
        raise NotImplementedError

    def new_client(self, sdk: Any, timeout_s: float) -> Any:
        """The SDK's async client, its own retries off (the Loop retries)."""
        raise NotImplementedError

    def setup_error(self, sdk: Any) -> type[Exception]:
        """The SDK's base error, raised when the client cannot be built (no credentials)."""
        raise NotImplementedError

    def wire(self, sdk: Any, client: Any) -> common.Wire:
        raise NotImplementedError

    async def run(self, request: AgentRequest) -> AgentReply:
        sdk = self.import_sdk()
        try:
            client = self.new_client(sdk, request.timeout_s)
        except self.setup_error(sdk) as exc:
            raise UserError(
                f"{self.backend}: cannot set up the {self.vendor} client: {exc}"
            ) from exc
        async with client:
            base_url = str(client.base_url)
            common.check_model_requests_allowed(base_url, backend=self.backend)
            loop = common.Loop(
                self.wire(sdk, client),
                request,
                backend=self.backend,
                model=self.model,
                base_url=base_url,
                tools=RepoTools(request.worktree, max_file_bytes=self.max_file_bytes),
                limits=self.limits,
                price=self.price,
            )
            return await loop.run()


def _body_text(body: object) -> str:
    if body is None:
        return ""
    return body if isinstance(body, str) else json.dumps(body, default=str)
