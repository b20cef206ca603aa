"""The experiments contend knows, by id, and how to reach each one's module and bank."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from contend.errors import UserError
from contend.experiments.bank import Bank, builtin_bank_path, load_bank


@dataclass(frozen=True, slots=True)
class Experiment:
    id: str
    slug: str
    module_name: str

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(f"contend.experiments.{self.module_name}")

    @property
    def title(self) -> str:
        return str(self.module.TITLE)

    @property
    def dirname(self) -> str:
        return f"{self.id}-{self.slug}"

    def bank(self, path: Path | None = None) -> Bank:
        """The experiment's bank (its built-in one unless `path`), checked and with every
        item's ground truth computed."""
        bank = load_bank(path or builtin_bank_path(self.module.BANK), experiment=self.id)
        self.module.check_bank(bank)
        return bank


EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in (
        Experiment("01", "consensus", "exp01_consensus"),
        Experiment("02", "byzantine", "exp02_byzantine"),
        Experiment("03", "bug-presence", "exp03_bug_presence"),
        Experiment("04", "ambiguity", "exp04_ambiguity"),
        Experiment("05", "gate", "exp05_gate"),
        Experiment("06", "chains", "exp06_chains"),
        Experiment("07", "debate-vs-vote", "exp07_debate_vote"),
    )
}


def experiment(name: str) -> Experiment:
    """By id ("07", "7") or slug ("debate-vs-vote"); UserError naming the choices."""
    key = name.strip().lower()
    if key.isdigit():
        key = f"{int(key):02d}"
    for e in EXPERIMENTS.values():
        if key in (e.id, e.slug, e.dirname):
            return e
    valid = ", ".join(f"{e.id} ({e.slug})" for e in EXPERIMENTS.values())
    raise UserError(f"unknown experiment {name!r}; experiments: {valid}")
