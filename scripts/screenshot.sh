#!/usr/bin/env bash
# Screenshot of the window under Xvfb with Mesa's software Vulkan (lavapipe):
#   scripts/screenshot.sh [SECONDS] [OUT.png]
# Needs the packages xvfb, xauth, mesa-vulkan-drivers and libvulkan1.
# Bevy's own screenshot API saves the frame (an X capture of Vulkan comes out black).
# PROFILE=debug uses the test build's binary (`cargo test --no-run`: the same
# dependency features as the tests, so nothing is built twice) instead of a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"
out="${2:-screenshot.png}"
profile="${PROFILE:-release}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/heartvale/target}"
if [ "$profile" = release ]; then
  cargo build --release --quiet
else
  cargo test --no-run --quiet
fi
xvfb-run -a -s "-screen 0 1280x800x24" \
  "$CARGO_TARGET_DIR/$profile/heartvale" window --screenshot-after "$seconds" --screenshot "$out" --exit
echo "saved $out"
