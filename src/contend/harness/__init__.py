"""`contend run`: the harness loop of seeds 001 and 004 (DESIGN §6).

    config    topologies A–D, focus areas, seed 004's `{"critics": {...}}` config (pure)
    core      the slice state machine: which step comes next, and the outcome (pure)
    gitops    the slice's branch and worktree, the main tree's fingerprint (git, files)
    request   what a slice is asked and what it returns; reading its spec
    cast      the slice's agents as the topology makes them, checked against its rule
    slice     one slice end to end: implementer, gates, review by the engine, oracle
    events    the subtask_* events of seed 004, one JSON object per line
    metrics   per-slice metrics in the SQLite index; `contend run note`
    batch     many slices through the executor interface of `contend experiment`

The review itself is `contend.review.engine.review`, called per attack round with the
spec and the slice's diff only; the harness never merges into the user's branch.
"""
