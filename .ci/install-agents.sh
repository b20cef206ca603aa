#!/usr/bin/env bash
# Install the real agent CLIs that tests/test_agent_{claude,codex,gemini}.py run against the
# fake model server (tests/fakes/model_server.py), into <repo>/.agents-node — never globally.
# Versions are pinned to the ones the tests were written against; bump them together with a
# test run. Without npm this prints why and exits 0: those tests then skip with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE=2.1.197
CODEX=0.171.0
GEMINI_CLI=0.61.0
PREFIX=.agents-node

if ! command -v npm >/dev/null 2>&1; then
  echo "install-agents: npm not found; the real-client agent tests will be skipped" >&2
  exit 0
fi

mkdir -p "$PREFIX"
# claude's postinstall only copies its native binary out of the platform package that npm
# itself installed (@anthropic-ai/claude-code-<platform>); codex ships its binary the same way.
npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact \
  "@anthropic-ai/claude-code@$CLAUDE_CODE" "@openai/codex@$CODEX"
# gemini's optional native add-ons (node-pty, keytar) are built or copied by install scripts;
# headless runs do not need them, so nothing is compiled or fetched outside the registry.
npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --ignore-scripts \
  "@google/gemini-cli@$GEMINI_CLI"

for bin in claude codex gemini; do
  "$PREFIX/node_modules/.bin/$bin" --version
done
