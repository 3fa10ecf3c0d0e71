#!/bin/sh
# The proxy's CPU per relayed chunk, chunks apart (issue 29 item 5): phase 4 of
# examples/proxy_load.rs, RUNS times (default 3), each run measuring the fake upstream
# alone (`direct`), the pass-through route, the parsed route (Chat) and the Messages and
# Responses fronts (`messages`, `responses`) in turn, with the load average before each run
# (the figures are only as quiet as the machine).
#
#   benches/proxy_relay.sh [RUNS [S:M:GAP [LIVE]]]
#
# S:M:GAP: streams, chunks per stream, ms between chunks (default 200:200:5);
# LIVE: closed (default), open or off, as proxy_load's. Builds the release binaries first
# (`cargo build --release --bin toolstream --example proxy_load`); TOOLSTREAM_NO_BUILD=1
# skips that. Linux only. PERFORMANCE.md, "CPU per relayed chunk", has the figures.
set -eu
runs=${1:-3}
apart=${2:-200:200:5}
live=${3:-closed}
cd "$(dirname "$0")/.."
if [ -z "${TOOLSTREAM_NO_BUILD:-}" ]; then
    cargo build --release --bin toolstream --example proxy_load
fi
target=${CARGO_TARGET_DIR:-target}
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)'), $(nproc) cores"
i=1
while [ "$i" -le "$runs" ]; do
    echo "run $i, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$target/release/examples/proxy_load" "$target/release/toolstream" 1 0 "$live" \
        --only apart --apart "$apart" | grep '^chunks apart'
    i=$((i + 1))
done
