#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The knowledge command line: JSON on stdout, exit 0; usage errors exit 2;
# no window and no display needed.
#
#   check-knowledge-cli.sh <strudel-jam binary> <tests/data dir>
set -u

app=$1
data=$2
failures=0

# No display at all: the options must answer before GTK starts.
unset DISPLAY WAYLAND_DISPLAY
export XDG_CACHE_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

check() {
  local name=$1 expected_status=$2 python_check=$3
  shift 3
  local out status
  out=$("$app" "$@" 2>/tmp/sj-cli-stderr.$$)
  status=$?
  if [ "$status" -ne "$expected_status" ]; then
    echo "not ok - $name: exit $status, expected $expected_status ($(cat /tmp/sj-cli-stderr.$$))"
    failures=$((failures + 1))
  elif [ -n "$python_check" ] && ! printf '%s' "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); assert $python_check, d" 2>/dev/null; then
    echo "not ok - $name: output fails: $python_check"
    printf '%s\n' "$out" | head -20
    failures=$((failures + 1))
  else
    echo "ok - $name"
  fi
  rm -f /tmp/sj-cli-stderr.$$
}

check "symbol lookup" 0 "d['ok'] and d['items'][0]['name'] == 'room'" --knowledge "symbol:room"
check "object form" 0 "d['ok'] and d['mode'] == 'list' and len(d['items']) == 2" \
  --knowledge-json '{"q": "list synths", "limit": 2}'
check "not found" 0 "not d['ok'] and d['reason'] == 'not_found'" --knowledge "is trancegate valid"
check "phrase" 0 "d['ok'] and d['items'][0]['name'] == 'lpf' and d['items'][0]['match'] == 'concept'" \
  --knowledge "low pass filter"
check "use instead" 0 "not d['ok'] and d['suggestions'][0] == 'duckorbit'" --knowledge "sidechain"
check "bundled sounds without a cache" 0 "d['ok'] and d['items'][0]['name'] == 'sawtooth'" --knowledge "is sawtooth available"
check "the sound library without a cache" 0 "d['ok'] and d['items'][0]['name'] == 'bd' and d['items'][0]['count'] == 8" \
  --knowledge "sounds:bd"
check "drum machines without a cache" 0 \
  "d['ok'] and d['items'][0]['kind'] == 'bank' and d['items'][0]['name'] == 'rolandtr808' and any(i['name'] == 'rolandtr808_bd' for i in d['items'])" \
  --knowledge "808 drums"
# Sounds say how the app would play them, from its cache directory.
check "a synth is built in" 0 "d['items'][0]['availability'] == 'built-in' and 'files' not in d['items'][0]" \
  --knowledge "is sawtooth available"
check "a sound that is not cached downloads" 0 \
  "d['items'][0]['availability'] == 'download' and d['items'][0]['files'] == 3 and d['items'][0]['cachedFiles'] == 0" \
  --knowledge "sounds:casio"
mkdir -p "$XDG_CACHE_HOME/strudel-jam/sounds/uzu-drumkit/bd"
printf 'RIFF' > "$XDG_CACHE_HOME/strudel-jam/sounds/uzu-drumkit/bd/13_bd_mot4i.wav"
check "a partly cached sound" 0 \
  "d['items'][0]['availability'] == 'download' and d['items'][0]['cachedFiles'] == 1 and d['items'][0]['cachedBytes'] == 4" \
  --knowledge "sounds:bd"
check "what plays offline" 0 \
  "d['mode'] == 'list' and d['items'][0]['name'] == 'bd' and d['items'][0]['offline'] == 'cached' and any(i['name'] == 'sawtooth' and i['offline'] == 'built-in' for i in d['items']) and any(i['name'] == 'hh' and i['offline'] == 'kit' for i in d['items']) and not any(i['name'] == 'casio' for i in d['items'])" \
  --knowledge-json '{"q": "sounds available offline", "limit": 100}'
check "sound snapshot file" 0 "d['ok'] and [i['name'] for i in d['items']] == ['my_loop']" \
  --knowledge "list user sounds" --sounds "$data/sounds-small.json"
check "search knowledge" 0 "d['returned'] <= 2 and d['total_matches'] >= 1 and d['category_searched'] == 'vocabulary'" \
  --search-knowledge "swing|shuffle" --category vocabulary --context 1 --max 2
check "bad regex is a JSON error" 0 "d['error'] == 'invalid_regex'" --search-knowledge "lpf("
check "bad category is a JSON error" 0 "d['error'] == 'invalid_category' and len(d['valid_categories']) == 8" \
  --search-knowledge "lpf" --category drums

check "nothing to do is a usage error" 2 "" --category effects
check "two commands is a usage error" 2 "" --knowledge fast --search-knowledge fast
check "invalid JSON is a usage error" 2 "" --knowledge-json '{"q": '
check "missing sounds file is a usage error" 2 "" --knowledge fast --sounds /nonexistent/sounds.json
check "context out of range is a usage error" 2 "" --search-knowledge fast --context 99
check "unknown option is a usage error" 2 "" --no-such-option
check "help is no error" 0 "" --help

exit $((failures > 0))
