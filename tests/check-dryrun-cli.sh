#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The dry-run command line: the report as JSON on stdout and exit 0, also
# when the code is rejected; usage errors exit 2; no window, no display.
#
#   check-dryrun-cli.sh <strudel-jam binary> <tests/data dir>
set -u

app=$1
data=$2
failures=0

unset DISPLAY WAYLAND_DISPLAY
export XDG_CACHE_HOME=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$XDG_CACHE_HOME" "$work"' EXIT

check() {
  local name=$1 expected_status=$2 python_check=$3 stdin=$4
  shift 4
  local out status
  out=$(printf '%s' "$stdin" | "$app" "$@" 2>"$work/stderr")
  status=$?
  if [ "$status" -ne "$expected_status" ]; then
    echo "not ok - $name: exit $status, expected $expected_status ($(cat "$work/stderr"))"
    failures=$((failures + 1))
  elif [ -n "$python_check" ] && ! printf '%s' "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); assert $python_check, d" 2>/dev/null; then
    echo "not ok - $name: output fails: $python_check"
    printf '%s\n' "$out" | head -30
    failures=$((failures + 1))
  else
    echo "ok - $name"
  fi
}

printf '$: s("bd*2, hh*4").bank("RolandTR808")\n$: note("c e g").s("sawtooth")\n' >"$work/good.strudel.js"
printf 'note("c e").fastt(2).roomy(.3)\nfoo(1)\n' >"$work/unknown.strudel.js"
printf 's("bd sd:3 nosuchdrum")\n' >"$work/kick.strudel.js"

check "good code" 0 "d['ok'] and d['events'] == 36 and 'rolandtr808_bd' in d['sounds'] and d['unknownSounds'] == []" "" \
  --dry-run "$work/good.strudel.js" --sounds "$data/sounds-small.json"
check "cycles" 0 "d['ok'] and d['events'] == 9 and d['cycles'] == 1" "" \
  --dry-run "$work/good.strudel.js" --cycles 1 --sounds "$data/sounds-small.json"
check "code from stdin" 0 "d['ok'] and d['events'] == 2" 's("bd sd")' --dry-run - --cycles 1
check "unknown symbols with suggestions" 0 \
  "not d['ok'] and d['phase'] == 'compile' and [s['name'] for s in d['unknownSymbols']] == ['fastt', 'roomy', 'foo'] and 'fast' in d['unknownSymbols'][0]['suggestions']" \
  "" --dry-run "$work/unknown.strudel.js"
check "syntax error" 0 "not d['ok'] and d['phase'] == 'syntax' and d['line'] == 1" 's("bd"))' --dry-run -
check "without a cache: the sound library is known, the rest is not" 0 \
  "d['ok'] and [u['name'] for u in d['unknownSounds']] == ['nosuchdrum']" "" --dry-run "$work/kick.strudel.js"
check "sample uses: the files the code plays" 0 \
  "d['sampleUses'] == [{'sound': 'bd', 'n': 0, 'pack': 'uzu-drumkit', 'path': 'bd/10_bd_switchangel.wav'}, {'sound': 'sd', 'n': 3, 'pack': 'uzu-drumkit', 'path': 'sd/13_sd_switchangel_2.wav'}]" \
  "" --dry-run "$work/kick.strudel.js" --cycles 1
# samples() in the code: a map the app fetched (in its cache, remembered in
# the index) is known; one it never fetched is loading, not unknown.
remote="$XDG_CACHE_HOME/strudel-jam/sounds/remote"
# The cache's layout: <scheme>/<host>/<path>, marked by .layout (issue 28).
mkdir -p "$remote/https/raw.githubusercontent.com/user/repo/main"
printf '{"_base": "https://raw.githubusercontent.com/user/repo/main/", "ghkick": ["kick.wav"]}' \
  >"$remote/https/raw.githubusercontent.com/user/repo/main/strudel.json"
printf 'https://raw.githubusercontent.com/user/repo/main/strudel.json\n' >"$remote/.index"
printf '2\n' >"$remote/.layout"
check "a sample map fetched before is known" 0 \
  "d['ok'] and d['loadingSounds'] == [] and [u['name'] for u in d['unknownSounds']] == ['nosuch']" \
  "samples('github:user/repo')
s(\"ghkick nosuch\")" --dry-run - --cycles 1
check "a sample map never fetched is loading" 0 \
  "d['ok'] and d['unknownSounds'] == [] and 'otherkick' in [l['name'] if isinstance(l, dict) else l for l in d['loadingSounds']]" \
  "samples('github:other/repo')
s(\"otherkick\")" --dry-run - --cycles 1
check "endless loop times out" 0 "not d['ok'] and d['phase'] == 'timeout'" 'while (true) {}
s("bd")' --dry-run -

check "cycles out of range is a usage error" 2 "" "" --dry-run "$work/good.strudel.js" --cycles 9
check "cycles 0 is a usage error" 2 "" "" --dry-run "$work/good.strudel.js" --cycles 0
check "cycles without --dry-run is a usage error" 2 "" "" --cycles 2
check "unreadable file is a usage error" 2 "" "" --dry-run /nonexistent/code.js
check "missing sounds file is a usage error" 2 "" "" --dry-run "$work/good.strudel.js" --sounds /nonexistent.json
check "knowledge and dry-run together is a usage error" 2 "" "" --dry-run "$work/good.strudel.js" --knowledge fast

exit $((failures > 0))
