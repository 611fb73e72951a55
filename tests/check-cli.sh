#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The command line's conventions: --version prints the version and exits 0,
# --help lists every option with a description and exits 0, an unknown
# option is a usage error (exit 2). None of them needs a display or a
# session bus.
#
#   check-cli.sh <strudel-jam binary> <version>
set -u

app=$1
version=$2
failures=0
n=0

unset DISPLAY WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS
export XDG_CACHE_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; failures=$((failures + 1)); }

run() {
  out=$("$app" "$@" 2>"$XDG_CACHE_HOME/stderr")
  status=$?
  err=$(cat "$XDG_CACHE_HOME/stderr")
}

run --version
if [ "$status" -eq 0 ] && [ "$out" = "strudel-jam $version" ] && [ -z "$err" ]; then
  ok "--version prints “strudel-jam $version” and exits 0"
else
  fail "--version: exit $status, stdout “$out”, stderr “$err”"
fi

run --version --knowledge fast
if [ "$status" -eq 0 ] && [ "$out" = "strudel-jam $version" ]; then
  ok "--version wins over other options"
else
  fail "--version with --knowledge: exit $status, stdout “$out”"
fi

run --help
if [ "$status" -eq 0 ] && printf '%s\n' "$out" | grep -q '^  strudel-jam \[OPTION…\] \[FILE…\]$'; then
  ok "--help exits 0 with the usage line"
else
  fail "--help: exit $status, stdout “$out”, stderr “$err”"
fi
help=$out

# Every option, each with a description on its line.
for option in version knowledge knowledge-json search-knowledge category context max sounds dry-run cycles; do
  if printf '%s\n' "$help" | grep -Eq "^  --$option(=[A-Z]+)? +[A-Z][^ ]* "; then
    ok "--help describes --$option"
  else
    fail "--help does not describe --$option"
  fi
done
if printf '%s\n' "$help" | grep -q 'A FILE of Strudel code opens in the editor'; then
  ok "--help says what a FILE does"
else
  fail "--help does not say what a FILE does"
fi

run --help-all
if [ "$status" -eq 0 ] && printf '%s\n' "$out" | grep -q -- '--gapplication-service'; then
  ok "--help-all exits 0 and lists GApplication's options too"
else
  fail "--help-all: exit $status"
fi

run --no-such-option
if [ "$status" -eq 2 ] && printf '%s' "$err" | grep -q -- '--no-such-option'; then
  ok "an unknown option is a usage error, exit 2"
else
  fail "unknown option: exit $status, stderr “$err”"
fi

# A file that is not there, or a folder: said on stderr, exit 1, and no
# window (there is no display here: a window would fail differently).
run /no/such/dir/song.strudel.js
if [ "$status" -eq 1 ] && [ -z "$out" ] && printf '%s' "$err" | grep -q '/no/such/dir/song.strudel.js: no such file'; then
  ok "a missing FILE is said on stderr, exit 1"
else
  fail "missing FILE: exit $status, stdout “$out”, stderr “$err”"
fi

run "$XDG_CACHE_HOME"
if [ "$status" -eq 1 ] && printf '%s' "$err" | grep -q 'a folder, not a file'; then
  ok "a folder given as FILE is said on stderr, exit 1"
else
  fail "folder as FILE: exit $status, stderr “$err”"
fi

echo "1..$n"
exit $((failures > 0))
