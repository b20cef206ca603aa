"""contend: adversarial verification of AI-agent work.

Independent critics attack a change on their own axes, the author answers each
objection (fix, concede, defend), critics press or withdraw, and only the disputes
that survived reach the human, ranked by contention, in a hash-chained ledger.

The Python API (docs/integrations.md): `contend.review(path, ...)` returns the report
model (`contend.report.model.Report`), `contend.verify(cards, ...)` the claims report.
"""

import sys
import types
from typing import Any

from contend.integrations.api import EventDeliveryError, review, verify

__version__ = "0.1.0"
__all__ = ["EventDeliveryError", "__version__", "review", "verify"]


class _Package(types.ModuleType):
    """The package keeps `review` as the API function: importing the engine's package
    `contend.review` would otherwise rebind the attribute to that module (the API object
    still reaches the package's modules by attribute: `contend.review.engine`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "review" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
