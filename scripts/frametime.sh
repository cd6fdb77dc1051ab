#!/usr/bin/env bash
# Frame times of the window with N residents walking and talking:
#   scripts/frametime.sh [RESIDENTS] [SECONDS] [SPEED]     (defaults: 200 20 20)
# Prints the median and 99th-percentile frame time, the frames over twice the
# median, and how many of those the simulation or the LLM bridge caused.
# With no display it runs under Xvfb with Mesa's software Vulkan (lavapipe);
# packages: xvfb, xauth, mesa-vulkan-drivers, libvulkan1. XVFB=1 forces Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
residents="${1:-200}"
seconds="${2:-20}"
speed="${3:-20}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/heartvale/target}"
cargo build --release --quiet
bin="$CARGO_TARGET_DIR/release/heartvale"
args=(window --generate "$residents" --speed "$speed" --frame-stats "$seconds")
if [ -n "${DISPLAY:-}" ] && [ -z "${XVFB:-}" ]; then
  "$bin" "${args[@]}"
else
  xvfb-run -a -s "-screen 0 1280x800x24" "$bin" "${args[@]}"
fi
