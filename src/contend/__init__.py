"""contend: adversarial verification of AI-agent work.

Independent critics attack a change on their own axes, the author answers each
objection (fix, concede, defend), critics press or withdraw, and only the disputes
that survived reach the human, ranked by contention, in a hash-chained ledger.
"""

__version__ = "0.1.0"
