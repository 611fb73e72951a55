#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Runs test-secrets on a private session bus, in a private home, so the
# keyring of whoever runs the tests is never touched:
#
#   test-secrets.sh running TEST-BINARY  with a gnome-keyring-daemon of its
#                                        own, its login collection unlocked
#   test-secrets.sh locked TEST-BINARY   the same, its login collection
#                                        locked again
#   test-secrets.sh none TEST-BINARY     with nothing that could provide
#                                        org.freedesktop.secrets
#   test-secrets.sh silent TEST-BINARY   with org.freedesktop.secrets owned
#                                        by something that never answers
#   test-secrets.sh stuck TEST-BINARY    with org.freedesktop.secrets
#                                        activatable, but what is started
#                                        never takes the name
#
# silent and stuck need SJ_TEST_SILENT_KEYRING, the path of
# tests/sj-test-silent-keyring.
#
# TEST-BINARY may be any command: test-settings-page runs as
# "xvfb-run -a … test-settings-page", which needs a display as well.
#
# The bus gets only a service directory of its own, empty but in stuck
# mode, so nothing (the system's gnome-keyring included) is ever activated
# behind the test's back.
# Afterwards the API key must appear nowhere in what the test printed nor,
# in plain text, anywhere in its home (GSettings is a keyfile there).
set -euo pipefail

mode=$1
binary=$2
shift 2

if [ "$mode" = "--inside" ]; then
  mode=$binary
  binary=$1
  shift
  # Whatever setting up prints goes to stderr: stdout is the TAP stream.
  exec 3>&1 1>&2
  if [ "$mode" = "running" ] || [ "$mode" = "locked" ]; then
    # --unlock reads the login password on stdin and creates the login
    # collection with it, unlocked.  --daemonize returns before the daemon
    # owns its name on the bus, so wait for that.  The daemon quits with
    # the bus, when dbus-run-session ends.
    printf test | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
    gdbus wait --session --timeout 20 org.freedesktop.secrets
  fi
  if [ "$mode" = "silent" ]; then
    "$SJ_TEST_SILENT_KEYRING" &
    gdbus wait --session --timeout 20 org.freedesktop.secrets
  fi
  if [ "$mode" = "locked" ]; then
    # Locked again, and with no prompter on the bus it cannot be unlocked.
    gdbus call --session --dest org.freedesktop.secrets \
      --object-path /org/freedesktop/secrets --method org.freedesktop.Secret.Service.Lock \
      "[objectpath '/org/freedesktop/secrets/collection/login']" >/dev/null
  fi
  # SJ_TEST_KEYRING_AS lets a binary that knows no silent or stuck mode
  # (an older build's, for bench/keyring/run) run its no-keyring cases.
  SJ_TEST_KEYRING=${SJ_TEST_KEYRING_AS:-$mode} "$binary" "$@" 1>&3
  exit
fi

for tool in dbus-run-session dbus-daemon gdbus; do
  command -v "$tool" >/dev/null || { echo "1..0 # SKIP $tool not installed"; exit 0; }
done
case "$mode" in
  silent|stuck)
    [ -x "${SJ_TEST_SILENT_KEYRING:-}" ] || { echo "1..0 # SKIP SJ_TEST_SILENT_KEYRING not set"; exit 0; } ;;
esac
if [ "$mode" != "none" ] && [ "$mode" != "silent" ] && [ "$mode" != "stuck" ] && ! command -v gnome-keyring-daemon >/dev/null; then
  echo "1..0 # SKIP gnome-keyring-daemon not installed"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/data" "$tmp/config" "$tmp/cache" "$tmp/runtime" "$tmp/services"
chmod 700 "$tmp/runtime"

cat >"$tmp/session.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=$tmp</listen>
  <servicedir>$tmp/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF

if [ "$mode" = "stuck" ]; then
  cat >"$tmp/services/org.freedesktop.secrets.service" <<SERVICE
[D-BUS Service]
Name=org.freedesktop.secrets
Exec=$SJ_TEST_SILENT_KEYRING --no-name
SERVICE
fi

api_key="sk-test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"

status=0
env -u DISPLAY -u WAYLAND_DISPLAY -u GNOME_KEYRING_CONTROL \
    HOME="$tmp/home" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" \
    XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/runtime" \
    GSETTINGS_BACKEND=keyfile G_MESSAGES_DEBUG=all SJ_TEST_API_KEY="$api_key" \
    dbus-run-session --config-file="$tmp/session.conf" -- \
    "$0" --inside "$mode" "$binary" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?

# stdout is the TAP stream; the logs (debug ones included) go to stderr.
if grep -qF -- "$api_key" "$tmp/stdout" "$tmp/stderr"; then
  # Never print the key itself, even here.
  sed "s/$api_key/<API KEY>/g" "$tmp/stdout"
  sed "s/$api_key/<API KEY>/g" "$tmp/stderr" >&2
  echo "Bail out! the API key appeared in the test output"
  exit 1
fi
cat "$tmp/stdout"
cat "$tmp/stderr" >&2

if grep -rqF -- "$api_key" "$tmp/home" "$tmp/data" "$tmp/config" "$tmp/cache"; then
  echo "Bail out! the API key was written in plain text to disk"
  exit 1
fi

exit "$status"
