#!/bin/bash
# Same games before and after a change to a simulator: fixed-seed `cardgen simulate --format json`
# outputs of every simulated game (The King's Blade 1, 2, 3, 3.1 at 2 to 4 players with each bot,
# claims included; The King's Guild at 2, 4 and 5 players; One True King with each bot).
#
#   bash benchmarks/simulate_same.sh OUT          # write the outputs into OUT (run it on main first)
#   bash benchmarks/simulate_same.sh OUT REF      # and compare them byte for byte with REF's
#   ONLY='kb31*' bash benchmarks/simulate_same.sh OUT REF   # only the runs whose names match
set -e
ONLY=${ONLY:-*}
out=$1; ref=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export PYTHONPATH=$root
run() { name=$1; shift; case "$name" in $ONLY) ;; *) return;; esac
        python -m cardgen --project "$root" simulate -q -j 2 --format json "$@" > "$out/$name.json"; }
run kb31-4 --version 3.1 --players 4 --games 1000 --seed 3
run kb31-2 --version 3.1 --players 2 --games 1000 --seed 5
run kb31-3r --version 3.1 --players 3 --games 600 --seed 8 --bots random,greedy,rush,builder,saboteur --no-claims
run kb1-4 --version 1 --players 4 --games 600 --seed 2
run kb1-2r --version 1 --players 2 --games 400 --seed 4 --bots random,saboteur --no-claims
run kb2-4 --version 2 --players 4 --games 600 --seed 2
run kb3-4 --version 3 --players 4 --games 600 --seed 2
run kb3-3 --version 3 --players 3 --games 400 --seed 9 --max-rounds 20 --no-claims
run kg-4 --game kings-guild --players 4 --games 300 --seed 2
run kg-2 --game kings-guild --players 2 --games 300 --seed 6
run kg-5 --game kings-guild --players 5 --games 150 --seed 1 --no-claims
run otk-2 --game one-true-king --players 2 --games 1000 --seed 2
run otk-2c --game one-true-king --players 2 --games 500 --seed 3 --bots cautious,random --no-claims
if [ -n "$ref" ]; then
  bad=0
  for f in "$ref"/$ONLY.json; do cmp -s "$f" "$out/$(basename "$f")" || { echo "DIFFERS: $(basename "$f")"; bad=1; }; done
  [ $bad = 0 ] && echo "SAME: all $(ls "$ref"/$ONLY.json | wc -l) outputs byte-identical"
  exit $bad
fi
