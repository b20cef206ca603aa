"""The registry of defect operators by topic, as the corpus builder and benchmarks use it."""

from __future__ import annotations

from inject import (
    eval_input,
    module_secret,
    pickle_loads,
    secret_op,
    shell_true,
    sql_from_string,
    tls_unverified,
    weak_hash,
    yaml_load,
)
from mutations import (
    add_skip,
    add_type_ignore,
    assert_eq_to_truthy,
    assert_equal_to_in,
    assert_equal_to_not_none,
    assert_equal_to_true,
    await_between_read_write,
    cast_any,
    delete_test,
    drop_await,
    isinstance_to_true,
    lower_places,
    mutable_default,
    param_to_any,
    raise_to_return_default,
    raise_to_return_none,
    remove_assertion,
    remove_guard,
    remove_lock,
    suppress_exception,
    try_except_pass,
    try_except_return_none,
    widen_assert_raises,
    widen_bare_except_return,
    widen_except_pass,
    wrap_assert_in_try,
)
from splice import Operator

OPERATORS: dict[str, dict[str, Operator]] = {
    "silent-fallback": {
        "raise_to_return_none": raise_to_return_none,
        "raise_to_return_default": raise_to_return_default,
        "try_except_return_none": try_except_return_none,
        "try_except_pass": try_except_pass,
        "widen_except_pass": widen_except_pass,
        "widen_bare_except_return": widen_bare_except_return,
        "suppress_exception": suppress_exception,
    },
    "test-weakening": {
        "assert_equal_to_true": assert_equal_to_true,
        "assert_equal_to_not_none": assert_equal_to_not_none,
        "assert_equal_to_in": assert_equal_to_in,
        "remove_assertion": remove_assertion,
        "widen_assert_raises": widen_assert_raises,
        "add_skip": add_skip,
        "wrap_assert_in_try": wrap_assert_in_try,
        "delete_test": delete_test,
        "lower_places": lower_places,
        "assert_eq_to_truthy": assert_eq_to_truthy,
    },
    "boundary-typing": {
        "remove_guard": remove_guard,
        "isinstance_to_true": isinstance_to_true,
        "add_type_ignore": add_type_ignore,
        "cast_any": cast_any,
        "param_to_any": param_to_any,
    },
    "concurrency": {
        "remove_lock": remove_lock,
        "drop_await": drop_await,
        "await_between_read_write": await_between_read_write,
        "mutable_default": mutable_default,
    },
    "security": {
        "shell_true": shell_true,
        "eval_input": eval_input,
        "yaml_load": yaml_load,
        "pickle_loads": pickle_loads,
        "weak_hash": weak_hash,
        "sql_from_string": sql_from_string,
        "tls_unverified": tls_unverified,
    },
    "secrets": {
        "secret_aws": secret_op("aws"),
        "secret_github": secret_op("github"),
        "secret_stripe": secret_op("stripe"),
        "secret_slack": secret_op("slack"),
        "secret_password": secret_op("password"),
        "secret_hex_api_key": secret_op("hex"),
        "module_secret": module_secret,
    },
}

# Topics whose operators work on test files; the others work on library modules.
TEST_TOPICS = frozenset({"test-weakening"})
