"""The simulator of correlated critics against its closed forms, and its command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.experiments import calibration
from contend.experiments.closed_forms import (
    comonotone,
    independent,
    orthant,
    poisson_binomial,
    quadrature,
)
from contend.experiments.simulate import SimulationInputError, simulate, simulate_counts

CASES = [
    ([0.3, 0.5, 0.6], 0.0),
    ([0.2, 0.2, 0.2, 0.2, 0.2], 0.0),
    ([0.3, 0.5, 0.6], 1.0),
    ([0.1, 0.4, 0.7, 0.9], 1.0),
    ([0.3, 0.5, 0.6], 0.3),
    ([0.5, 0.5, 0.5, 0.5], calibration.DEFAULT_RHO),
    ([0.2, 0.9], 0.8),
    ([0.05, 0.1, 0.3, 0.6, 0.7, 0.8, 0.95], 0.5),
    ([0.5, 0.5], -0.5),
    ([0.5, 0.5, 0.5], -0.4),
    ([0.5, 0.5, 0.5], 0.7),
]


@pytest.mark.parametrize(("p", "rho"), CASES)
def test_monte_carlo_matches_the_exact_values_within_three_standard_errors(
    p: list[float], rho: float
) -> None:
    result = simulate(p, rho, 200_000, seed=11)
    for rule in ("adversarial", "majority"):
        exact = result.get(f"closed_form_{rule}", result.get(f"quadrature_{rule}"))
        assert exact is not None
        se = result["stderr"][rule]
        assert abs(result[f"{rule}_survival"] - exact) <= 3 * se, (rule, exact, result)


def test_closed_forms_by_hand() -> None:
    # Independent: survival = (1-.3)(1-.5)(1-.6) = 0.14; majority of 3 needs 2 catches.
    adv, maj = independent([0.3, 0.5, 0.6])
    assert adv == pytest.approx(0.14)
    # P(0 or 1 catch) = 0.14 + (.3*.5*.4 + .7*.5*.4 + .7*.5*.6) = 0.14 + 0.41
    assert maj == pytest.approx(0.55)
    assert poisson_binomial([0.5, 0.5]) == pytest.approx([0.25, 0.5, 0.25])
    # One shared latent: the most capable critic decides adversarial survival.
    assert comonotone([0.3, 0.5, 0.6]) == pytest.approx((0.4, 0.5))
    # The quadrature reduces to the closed forms at the ends of its range.
    assert quadrature([0.3, 0.5, 0.6], 1e-9) == pytest.approx((0.14, 0.55), abs=1e-6)
    assert quadrature([0.3, 0.5, 0.6], 0.999) == pytest.approx((0.4, 0.5), abs=1e-3)


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9, 0.99])
def test_quadrature_error_is_below_1e6(rho: float) -> None:
    coarse = quadrature([0.05, 0.3, 0.5, 0.6, 0.99], rho)
    fine = quadrature([0.05, 0.3, 0.5, 0.6, 0.99], rho, nodes=80_001)
    assert coarse == pytest.approx(fine, abs=1e-6)


def test_certain_critics_and_negative_correlation() -> None:
    counts = simulate_counts([1.0, 0.0, 0.0], 0.4, 10_000)
    assert counts.adversarial == 0 and counts.majority == 10_000
    # Orthant probabilities agree with the quadrature where both apply.
    assert orthant(3, 0.5) == pytest.approx(quadrature([0.5, 0.5, 0.5], 0.5), abs=1e-9)
    assert orthant(2, -0.5)[0] == pytest.approx(1 / 6)
    # Negative correlation spreads catches out: survival falls below the independent 0.14.
    neg = simulate([0.3, 0.5, 0.6], -0.4, 200_000)
    assert neg["reference"] is None and "closed_form_adversarial" not in neg
    assert neg["adversarial_survival"] + 3 * neg["stderr"]["adversarial"] < 0.14


def test_chunking_changes_memory_not_the_estimate() -> None:
    small = simulate_counts([0.3, 0.5, 0.6], 0.3, 100_003, chunk=1_000)
    assert small.trials == 100_003
    exact, _ = quadrature([0.3, 0.5, 0.6], 0.3)
    se = (exact * (1 - exact) / small.trials) ** 0.5
    assert abs(small.adversarial / small.trials - exact) <= 3 * se


@pytest.mark.parametrize(
    ("p", "rho", "trials", "message"),
    [
        ([1.3], 0.0, 10, "p must lie in [0, 1], got 1.3"),
        ([-0.1, 0.5], 0.0, 10, "p must lie in [0, 1], got -0.1"),
        ([0.5, 0.5, 0.5], -0.6, 10, "rho=-0.6 makes the 3x3 correlation matrix invalid"),
        ([0.5, 0.5], 1.2, 10, "rho=1.2 makes the 2x2 correlation matrix invalid"),
        ([0.5], 0.0, 0, "trials must be at least 1, got 0"),
    ],
)
def test_bad_inputs(p: list[float], rho: float, trials: int, message: str) -> None:
    with pytest.raises(SimulationInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        simulate(p, rho, trials)


def test_default_rho_is_the_calibration_of_kim_et_al() -> None:
    assert calibration.agreement(0.0) == pytest.approx(1 / 3, abs=0.005)
    assert calibration.agreement(1.0) == 1.0
    fitted = calibration.calibrate()
    assert round(fitted, 2) == calibration.DEFAULT_RHO
    assert calibration.agreement(fitted) == pytest.approx(0.60, abs=0.002)


def test_cli_json_gives_the_documented_example(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "experiment",
            "simulate",
            "--p",
            "0.3,0.5,0.6",
            "--rho",
            "0",
            "--trials",
            "1000000",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "adversarial_survival",
        "majority_survival",
        "trials",
        "stderr",
        "closed_form_adversarial",
    ):
        assert key in data
    assert data["trials"] == 1_000_000
    assert abs(data["adversarial_survival"] - 0.14) <= 3 * data["stderr"]["adversarial"]
    assert data["closed_form_adversarial"] == pytest.approx(0.14)


def test_cli_c_times_d_and_default_rho(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["experiment", "simulate", "--c", "0.5,1", "--d", "0.6,0.5", "--trials", "1000", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["p"] == pytest.approx([0.3, 0.5])
    assert data["rho"] == calibration.DEFAULT_RHO and "quadrature_adversarial" in data


def test_cli_sweep_writes_curves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    code = main(
        [
            "experiment",
            "simulate",
            "--p",
            "0.4",
            "--sweep",
            "--k-max",
            "4",
            "--rhos",
            "0,0.9",
            "--trials",
            "20000",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["rho"], r["k"]) for r in rows] == [(0.0, k) for k in range(1, 5)] + [
        (0.9, k) for k in range(1, 5)
    ]
    independent_4 = next(r for r in rows if r["rho"] == 0 and r["k"] == 4)
    assert independent_4["closed_form_adversarial"] == pytest.approx(0.6**4)
    assert (out / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| rho | k |" in (out / "sweep.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--p", "0.3,1.5"], "p must lie in [0, 1], got 1.5"),
        (["--p", "0.5,0.5,0.5", "--rho", "-0.9"], "correlation matrix invalid"),
        (["--p", "0.5", "--trials", "0"], "trials must be at least 1, got 0"),
        (["--p", "a,b"], "--p must be comma-separated numbers"),
        (["--c", "0.5"], "give --p, or --c and --d"),
        (["--c", "0.5,0.4", "--d", "0.5"], "--c has 2 values and --d 1"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experiment", "simulate", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
