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

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contend.agents import api_common as common
from contend.agents.base import AgentReply, AgentRequest
from contend.agents.repo_tools import RepoTools
from contend.errors import UserError

if TYPE_CHECKING:
    from contend.agents.prices import ModelPrice, Provider
    from contend.config import Price


class SdkWire:
    """Sends one request body through an SDK resource (`client.chat.completions`,
    `client.messages`) and reads the answer under a byte cap."""

    # Where, on the SDK's client, `with_streaming_response.create(**body)` sends a request.
    resource: tuple[str, ...]

    def __init__(self, sdk: Any, client: Any, model: str, max_bytes: int) -> None:
        self.sdk = sdk
        self.client = client
        self.model = model
        self.max_bytes = max_bytes

    async def send(self, body: dict[str, Any], timeout_s: float) -> common.RawResponse:
        # The SDK's HTTP library: the SDK wraps its errors until the response starts, but a
        # connection that drops while the body is read raises httpx2's own error.
        import httpx2

        sdk = self.sdk
        endpoint = functools.reduce(getattr, self.resource, self.client)
        try:
            async with endpoint.with_streaming_response.create(
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


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to connect; `api_key`/`base_url` None mean "the SDK's own env"."""

    base_url: str | None
    api_key: str | None
    headers: dict[str, str]


class SdkAgent:
    """An API-model agent whose conversation runs through a vendor SDK. Subclasses set
    `backend`, `model`, `family`, `capabilities`, `endpoint`, and name the SDK's import, its
    client and base error, and their Wire."""

    backend: str
    model: str
    vendor: str  # as the SDK's name reads in messages: "OpenAI", "Anthropic"
    client_class: str  # the SDK's async client: "AsyncOpenAI"
    base_error: str  # the SDK's base error, raised when no client can be built: "OpenAIError"
    endpoint: Endpoint
    max_file_bytes: int
    limits: common.Limits
    price: ModelPrice | None

    # The adapter's wire format: (sdk, client, model, max_bytes) -> Wire.
    wire: Callable[[Any, Any, str, int], common.Wire]

    def __init__(
        self,
        model: str,
        endpoint: Endpoint,
        *,
        provider: Provider | None,
        max_file_bytes: int,
        prices: Mapping[str, Price] | None,
        limits: common.Limits | None,
    ) -> None:
        self.model = model
        self.endpoint = endpoint
        self.max_file_bytes = max_file_bytes
        self.limits = limits or common.Limits()
        # A configured price wins; else the built-in one of a first-party `provider`.
        self.price = common.lookup_price(model, prices or {}, provider)

    @staticmethod
    def import_sdk() -> Any:
        """The vendor SDK module; UserError naming the extra to install when missing."""
        raise NotImplementedError

    async def run(
        self,
        request: AgentRequest,
        *,
        tools: RepoTools | None = None,
        wire: Callable[[Any, Any, str, int], common.Wire] | None = None,
    ) -> AgentReply:
        """`tools` and `wire` replace the read-only repo tools and the adapter's wire (the
        harness's API implementers add write tools confined to the worktree)."""
        sdk = self.import_sdk()
        try:
            # The SDK's own retries are off: retries belong to the Loop.
            client = getattr(sdk, self.client_class)(
                api_key=self.endpoint.api_key,
                base_url=self.endpoint.base_url,
                default_headers=self.endpoint.headers or None,
                max_retries=0,
                timeout=request.timeout_s,
            )
        except getattr(sdk, self.base_error) as exc:
            raise UserError(
                f"{self.backend}: cannot set up the {self.vendor} client: {exc}"
            ) from exc
        async with client:
            base_url = str(client.base_url)
            common.check_model_requests_allowed(base_url, backend=self.backend)
            loop = common.Loop(
                (wire or self.wire)(sdk, client, self.model, self.limits.max_response_bytes),
                request,
                backend=self.backend,
                model=self.model,
                base_url=base_url,
                tools=tools or RepoTools(request.worktree, max_file_bytes=self.max_file_bytes),
                limits=self.limits,
                price=self.price,
            )
            return await loop.run()


def _body_text(body: object) -> str:
    if body is None:
        return ""
    return body if isinstance(body, str) else json.dumps(body, default=str)
