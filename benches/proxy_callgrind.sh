#!/bin/sh
# The proxy's user-space instructions per relayed chunk (issue 29 item 5), exact and
# load-independent: the proxy runs under `valgrind --tool=callgrind` while phase 4 of
# examples/proxy_load.rs sends 10 streams × M chunks 20 ms apart through one route; the
# count of a 1-chunk run (start-up, connections, per-request work) is subtracted and the
# rest divided by the 990 extra chunks. Two runs of 100 chunks per route (a multi-threaded
# program's count moves by a few hundred instructions with how its polls interleave).
#
#   benches/proxy_callgrind.sh [ROUTE ...]     (default: parsed pass-through)
#
# ROUTE: pass-through, parsed, messages, responses (as proxy_load's --routes). Prints one
# line per run; the callgrind files stay in $OUT (default /tmp/proxy_callgrind) for
# `callgrind_annotate --inclusive=yes`. Builds the release binaries first unless
# TOOLSTREAM_NO_BUILD=1. Needs valgrind; Linux only. PERFORMANCE.md, "CPU per relayed
# chunk", has the figures.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- parsed pass-through
if [ -z "${TOOLSTREAM_NO_BUILD:-}" ]; then
    cargo build --release --bin toolstream --example proxy_load
fi
target=${CARGO_TARGET_DIR:-target}
bin=$(pwd)/$target/release/toolstream
out=${OUT:-/tmp/proxy_callgrind}
mkdir -p "$out"
# proxy_load kills the process it started with SIGKILL, which callgrind cannot survive to
# write its counts: so it starts this wrapper, which runs valgrind in the background and
# notes its pid; the proxy is then stopped with SIGTERM (it drains and exits 0).
wrap=$out/wrap.sh
cat > "$wrap" <<EOF
#!/bin/sh
valgrind --tool=callgrind --log-file="$out/valgrind.log" --callgrind-out-file="\$CG_FILE" \
    "$bin" "\$@" >/dev/null &
echo \$! > "$out/pid"
wait
EOF
chmod +x "$wrap"
# One run: prints the total instructions of ROUTE with M chunks per stream.
run() {
    file=$out/callgrind.$1.$2.$3
    CG_FILE=$file "$target/release/examples/proxy_load" "$wrap" 1 0 closed \
        --only apart --apart "10:$2:20" --routes "$1" >/dev/null
    pid=$(cat "$out/pid")
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    grep '^summary:\|^totals:' "$file" | head -1 | awk '{print $2}'
}
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
for route in "$@"; do
    one=$(run "$route" 1 a)
    for r in a b; do
        hundred=$(run "$route" 100 "$r")
        echo "$route run $r: 1 chunk $one, 100 chunks $hundred instructions: $(((hundred - one) / 990)) per chunk"
    done
done
