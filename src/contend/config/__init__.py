"""Configuration of contend: typed settings, where they come from, and in which order.

Precedence, lowest first: built-in defaults < user config < project config (`contend.toml`
or `[tool.contend]` in pyproject.toml) < environment (`CONTEND_*`) < command-line flags.
Unknown keys and values of the wrong type raise ConfigError naming the key and the file or
variable. Reading config is the only I/O here; nothing is ever written. docs/configuration.md
is the user's reference.

    model     Settings and its tables (pure data)
    specs     critic, oracle and proposer specs, checked against contend.backends
    files     locating and parsing the user and project TOML files
    env       CONTEND_* variables and their explicit parsing
    messages  one-line error messages
    load      layers, merge, provenance: load_settings, explain_settings
"""

from __future__ import annotations

from contend.config.env import RESERVED_ENV_VARS, env_var_table
from contend.config.files import project_config_paths, user_config_path
from contend.config.load import NOT_PASSED, explain_settings, load_settings
from contend.config.model import (
    Limits,
    OutputFormat,
    Price,
    ProviderConfig,
    Providers,
    Settings,
)
from contend.config.specs import (
    CRITIC_BACKENDS,
    PROPOSER_BACKENDS,
    AgentSpec,
    parse_critic_spec,
    parse_oracle_spec,
    parse_proposer_spec,
)

__all__ = [
    "CRITIC_BACKENDS",
    "NOT_PASSED",
    "PROPOSER_BACKENDS",
    "RESERVED_ENV_VARS",
    "AgentSpec",
    "Limits",
    "OutputFormat",
    "Price",
    "ProviderConfig",
    "Providers",
    "Settings",
    "env_var_table",
    "explain_settings",
    "load_settings",
    "parse_critic_spec",
    "parse_oracle_spec",
    "parse_proposer_spec",
    "project_config_paths",
    "user_config_path",
]
