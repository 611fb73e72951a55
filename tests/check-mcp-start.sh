#!/bin/sh
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# `strudel-jam --mcp` with no Strudel Jam running (issue 34): the official
# MCP SDK client's first request that needs the window starts the app (the
# MCP process spawns it and waits for its name on the session bus), and
# tools/list and resources/list are answered by it. Run under Xvfb and a
# private session bus, with a private home; TAP on stdout.
#
#   check-mcp-start.sh STRUDEL_JAM MCP_CLIENT_DIR
set -u

strudel_jam=$1
client_dir=$2
home=$(mktemp -d)
trap 'if [ -s "$home/app.pid" ]; then kill "$(cat "$home/app.pid")" 2>/dev/null; fi; rm -rf "$home"' EXIT

export HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache"
export XDG_STATE_HOME="$home/state"
# The app the MCP process starts records its pid, for the cleanup above.
export STRUDEL_JAM_MCP_LAUNCH="sh -c 'echo \$\$ > \"$home/app.pid\"; exec \"$strudel_jam\"'"

echo "1..3"
out=$(node "$client_dir/jam.mjs" "$strudel_jam" starter '[{"list": "tools"}, {"list": "resources"}]' 2>"$home/err")
status=$?
if [ $status -eq 0 ]; then echo "ok 1 - the client ran (exit 0)"; else echo "not ok 1 - the client exited $status"; sed 's/^/# /' "$home/err"; fi
if printf '%s\n' "$out" | grep -q '"step":0,"ok":true.*"name":"apply_strudel_change"'; then
  echo "ok 2 - tools/list answered by the app it started"
else
  echo "not ok 2 - tools/list"; printf '%s\n' "$out" | cut -c1-300 | sed 's/^/# /'
fi
if printf '%s\n' "$out" | grep -q '"step":1,"ok":true.*strudel://code/current' && [ -s "$home/app.pid" ]; then
  echo "ok 3 - resources/list, and the app was started once"
else
  echo "not ok 3 - resources/list or no app started"
fi
