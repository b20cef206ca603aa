"""The specs of agents in config and on the command line: `name[:arg]`, checked against the
one backend registry (contend.backends) for the role that names them.

It checks the name, the role and the argument; whether a backend is installed or reachable
is decided when the agent is built (agents.registry).
"""

from __future__ import annotations

from contend.backends import AgentSpec, builtin_names, parse_spec

__all__ = [
    "CRITIC_BACKENDS",
    "PROPOSER_BACKENDS",
    "AgentSpec",
    "parse_critic_spec",
    "parse_oracle_spec",
    "parse_proposer_spec",
]

# contend's own backends per role; installed packages add theirs (see contend.backends).
CRITIC_BACKENDS = builtin_names("critic")
PROPOSER_BACKENDS = builtin_names("proposer")


def parse_critic_spec(text: str) -> AgentSpec:
    """Parse a critic spec; ValueError says what is wrong and what is valid."""
    return parse_spec(text, "critic")[0]


def parse_oracle_spec(text: str) -> AgentSpec:
    """Parse the oracle's spec; ValueError says what is wrong and what is valid."""
    return parse_spec(text, "oracle")[0]


def parse_proposer_spec(text: str) -> AgentSpec:
    """Parse a proposer spec; ValueError says what is wrong and what is valid."""
    return parse_spec(text, "proposer")[0]
