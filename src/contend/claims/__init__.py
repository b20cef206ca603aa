"""Claim verification (`contend verify`, DESIGN §4, seeds/002): the pure units of the protocol.

    card.py            the claim card and its evidence items (pydantic; kebab-case + snake_case)
    load.py            claim-card files → cards and per-card errors (YAML/JSON; I/O edge)
    evidence.py        reading local evidence: pages, regions, size/encoding/PDF skips (I/O edge)
    gate.py            Step 0 entry gate and Step 1 precheck (pure decisions with reasons)
    axes.py            Step 2 axis assignment; two agents on one axis is refused
    convergence.py     Step 4 convergence and verdict rules over a claim's round state (pure)
    quantities.py      numbers with units, percentages, ranges and approximations in text
    words.py           stop lists, normalisation and stemming for the checks below
    findings.py        located regions, findings and attacks (plain data)
    phrases.py         quotes and named entities against a region
    internal_fact.py   the deterministic internal-fact critic (no model)
    controls.py        level-3 negative controls: the verifier shows it can say no
    deadlock.py        the meta-judge's deadlock report shape (no decision authority)
    report.py          the claims report (`contend.claims/v1`) and its verdict/exit rules
    schema.py          the published JSON Schemas (report and card), generated
    render.py          report.md
    artifacts.py       the level-3 evaluator artifact set
    events.py          the ledger event kinds of a claims run
    run.py             one run without agents: gate, precheck, internal-fact (reading injected)
    round_state.py     a claim's rounds as data: setup, state, requests, replies, round context
    rounds.py          Steps 2–4.5 as one pure planner: plan(state, reply) -> Step
    replay.py          the planner run again over a ledger's recorded replies (resume)
    rounds_result.py   the report's ClaimResult of a claim decided in rounds (pure)
    speakers.py        who speaks: registry agents, the deterministic checker, a person
    driver.py          the I/O edge: performs the planner's requests with the speakers

Only driver.py calls agents (through speakers.py): the planner decides, the driver performs.
"""
