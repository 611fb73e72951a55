#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Audio integration test: plays the first-start demo (synth sounds only, so it
# works offline) into a private PulseAudio null sink and checks with parecord
# that the sink's monitor carries sound while playing and is silent after stop.
#
# Usage: test-audio.sh STRUDEL_JAM_BINARY
#
# Environment:
#   GSETTINGS_SCHEMA_DIR  directory with the compiled schema (required unless
#                         the schema is installed; meson passes build/data)
#   SJ_TEST_OUTPUT_DIR    if set, a failed run leaves its logs and recordings
#                         (WAV) in SJ_TEST_OUTPUT_DIR/test-audio
#   SJ_TEST_KEEP          if set, keep the temporary directory (logs and
#                         raw recordings, s16le 44100 Hz stereo) for inspection
#
# Exit: 0 pass, 1 fail, 77 skip (a needed tool is missing).
#
# Everything runs privately: own Xvfb (via xvfb-run), own D-Bus session, own
# PulseAudio with its socket in a private XDG_RUNTIME_DIR (which WebKit's
# bubblewrap sandbox exposes to the web process), own XDG data/config/cache.

set -u

APP_ID=io.github.strudeljam.StrudelJam
APP_PATH=/io/github/strudeljam/StrudelJam
WIN_PATH=$APP_PATH/window/1
SINK=sjnull
RATE=44100
CHANNELS=2

# Thresholds on a 0..1 full-scale amplitude.
PLAY_RMS_MIN=0.005      # the demo measures around 0.1 RMS; silence is 0
STOP_RMS_MAX=0.0005     # about -66 dBFS
STOP_PEAK_MAX=0.005
READY_TIMEOUT=60        # seconds, failure guard only

log () { printf 'test-audio: %s\n' "$*" >&2; }
skip () { log "SKIP: $*"; exit 77; }

# ---------------------------------------------------------------- outer stage
# Check the tools, then re-run this script inside Xvfb and a D-Bus session.
if [ "${1:-}" != "--inner" ]; then
  if [ $# -lt 1 ]; then
    log "usage: $0 STRUDEL_JAM_BINARY"
    exit 1
  fi
  bin=$1
  if [ ! -x "$bin" ]; then
    log "FAIL: not an executable: $bin"
    exit 1
  fi
  for tool in pulseaudio pactl parecord xvfb-run Xvfb xauth dbus-run-session gdbus python3 setsid pgrep; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
  done
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

  # Private directories, set before the D-Bus session starts so that the
  # services it activates (portals, accessibility bus) use them as well.
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/sj-audio-test.XXXXXX") || exit 1
  export SJ_TEST_TMP=$tmp
  export HOME=$tmp/home
  export XDG_RUNTIME_DIR=$tmp/run
  export XDG_DATA_HOME=$tmp/data
  export XDG_CONFIG_HOME=$tmp/config
  export XDG_CACHE_HOME=$tmp/cache
  mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
  chmod 0700 "$XDG_RUNTIME_DIR"
  export GSETTINGS_BACKEND=memory
  # No Wayland or outer session leaks in: X11 on Xvfb only.
  unset WAYLAND_DISPLAY DISPLAY DBUS_SESSION_BUS_ADDRESS PULSE_SERVER PULSE_SINK PULSE_SOURCE
  export GDK_BACKEND=x11

  finish () {
    if [ -n "${SJ_TEST_KEEP:-}" ]; then
      log "kept $tmp"
    else
      rm -rf --one-file-system "$tmp"
    fi
  }
  trap finish EXIT
  trap 'exit 1' INT TERM
  xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
    dbus-run-session -- bash "$self" --inner "$bin"
  exit $?
fi

# ---------------------------------------------------------------- inner stage
bin=$2

tmp=$SJ_TEST_TMP
[ -z "${SJ_TEST_OUTPUT_DIR:-}" ] || rm -rf "$SJ_TEST_OUTPUT_DIR/test-audio"
pa_pid=
app_pid=

signalled=

# end_app: end the app and its WebKit helpers (its process group). Unless
# signalled, first ask it to quit, so that what it and the page wrote
# (with STRUDEL_JAM_DEVTOOLS=1 also the page's console) reaches app.log.
# When signalled be quick: on a timeout meson sends SIGKILL 0.5 s after
# SIGTERM, and the app, in its own session, would outlive this script.
end_app () {
  [ -n "$app_pid" ] || return 0
  if [ -z "$signalled" ] && kill -0 "$app_pid" 2>/dev/null; then
    gdbus call --session --timeout 2 --dest "$APP_ID" --object-path "$APP_PATH" \
      --method org.gtk.Actions.Activate quit '[]' '{}' >/dev/null 2>&1
    for _ in $(seq 30); do
      kill -0 "$app_pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  kill -TERM -- "-$app_pid" 2>/dev/null
  for _ in 1 2 3 4 5; do
    kill -0 "$app_pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -KILL -- "-$app_pid" 2>/dev/null
  app_pid=
}

cleanup () {
  local rc=$?
  trap - EXIT INT TERM
  end_app
  if [ -n "$pa_pid" ] && kill -0 "$pa_pid" 2>/dev/null; then
    kill -TERM "$pa_pid" 2>/dev/null
    wait "$pa_pid" 2>/dev/null
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'signalled=1; exit 1' INT TERM

fail () {
  log "FAIL: $*"
  end_app
  if [ -s "$tmp/app.log" ]; then
    log "---- last lines of the app's log ----"
    tail -n 40 "$tmp/app.log" >&2
  fi
  if [ -s "$tmp/pulse.log" ]; then
    log "---- last lines of PulseAudio's log ----"
    tail -n 15 "$tmp/pulse.log" >&2
  fi
  save_artifacts
  exit 1
}

# save_artifacts: with SJ_TEST_OUTPUT_DIR set, keep the logs and the
# recordings (as WAV) of a failed run in $SJ_TEST_OUTPUT_DIR/test-audio.
save_artifacts () {
  [ -n "${SJ_TEST_OUTPUT_DIR:-}" ] || return 0
  local out=$SJ_TEST_OUTPUT_DIR/test-audio
  rm -rf "$out" && mkdir -p "$out" || return 0
  cp "$tmp"/*.log "$out"/ 2>/dev/null
  python3 - "$out" "$RATE" "$CHANNELS" "$tmp"/*.raw <<'PY'
import os, sys, wave
out, rate, ch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for raw in sys.argv[4:]:
    if not os.path.exists(raw):
        continue
    name = os.path.join(out, os.path.basename(raw)[:-4] + '.wav')
    with open(raw, 'rb') as f, wave.open(name, 'wb') as w:
        w.setnchannels(ch)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(f.read())
PY
  log "logs and recordings saved in $out"
}

# ---------------------------------------------------------------- PulseAudio
# -n: no default.pa; only a unix socket (anonymous auth, so no cookie has to
# reach the sandboxed web process) and one null sink, made the default.
pulseaudio -n --daemonize=no --exit-idle-time=-1 \
  --disallow-exit --use-pid-file=no --log-target=stderr --log-level=notice \
  -L "module-native-protocol-unix auth-anonymous=1" \
  -L "module-null-sink sink_name=$SINK rate=$RATE channels=$CHANNELS sink_properties=device.description=StrudelJamTest" \
  -L "module-always-sink" \
  >"$tmp/pulse.log" 2>&1 &
pa_pid=$!

deadline=$((SECONDS + 10))
until pactl info >/dev/null 2>&1; do
  kill -0 "$pa_pid" 2>/dev/null || fail "PulseAudio exited at start"
  [ $SECONDS -lt $deadline ] || fail "PulseAudio did not answer within 10 s"
  sleep 0.1
done
pactl set-default-sink "$SINK" || fail "cannot make $SINK the default sink"
log "PulseAudio up at $XDG_RUNTIME_DIR/pulse/native, default sink $SINK"

# record SECONDS FILE: record exactly SECONDS of audio from the sink's monitor.
# The byte count, not a timer, bounds it: the monitor delivers in real time.
record () {
  local bytes
  bytes=$(python3 -c "print(int($1 * $RATE) * $CHANNELS * 2)")
  parecord --raw --device="$SINK.monitor" --format=s16le --rate=$RATE \
    --channels=$CHANNELS --latency-msec=20 2>>"$tmp/parecord.log" \
    | head -c "$bytes" >"$2"
  [ "$(stat -c %s "$2")" -eq "$bytes" ] || fail "parecord delivered $(stat -c %s "$2") of $bytes bytes"
}

# levels FILE FROM TO: print "rms peak" of the samples between FROM and TO
# seconds (full scale 1.0), the onset (first 10 ms block whose peak exceeds
# 0.01, in seconds, or -1) and the envelope of the whole file (RMS of each
# half second, comma-separated).
levels () {
  python3 - "$1" "$2" "$3" "$RATE" "$CHANNELS" <<'EOF'
import array, math, sys
path, t0, t1, rate, ch = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
a = array.array('h')
with open(path, 'rb') as f:
    a.frombytes(f.read())
if sys.byteorder != 'little':
    a.byteswap()
s = a[int(t0 * rate) * ch:int(t1 * rate) * ch]
n = max(len(s), 1)
rms = math.sqrt(sum(x * x for x in s) / n) / 32768.0
peak = max((abs(x) for x in s), default=0) / 32768.0
block = rate * ch // 100
onset = -1.0
for i in range(0, len(a), block):
    if max((abs(x) for x in a[i:i + block]), default=0) > 0.01 * 32768:
        onset = i / (rate * ch)
        break
half = rate * ch // 2
env = ','.join(f"{math.sqrt(sum(x * x for x in a[i:i + half]) / half) / 32768.0:.3f}"
               for i in range(0, len(a) - half + 1, half))
print(f"{rms:.6f} {peak:.6f} {onset:.2f} {env}")
EOF
}

# float_cmp A OP B, OP one of < >
float_cmp () { python3 -c "import sys; sys.exit(0 if float('$1') $2 float('$3') else 1)"; }

# ---------------------------------------------------------------- the app
# setsid: the app leads its own process group, so WebKit's helpers can be
# found and ended with it.
setsid "$bin" >"$tmp/app.log" 2>&1 &
app_pid=$!
log "started $bin (pid $app_pid)"

call () {
  gdbus call --session --dest "$APP_ID" --object-path "$1" \
    --method org.gtk.Actions."$2" "${@:3}"
}

# Ready when the window's 'play' action is enabled, i.e. the Strudel page is up.
deadline=$((SECONDS + READY_TIMEOUT))
start=$SECONDS
while :; do
  kill -0 "$app_pid" 2>/dev/null || fail "the app exited before it was ready"
  out=$(call "$WIN_PATH" Describe play 2>/dev/null) && case $out in
    "((true,"*) break ;;
  esac
  [ $SECONDS -lt $deadline ] || fail "'play' was not enabled within ${READY_TIMEOUT} s (last: ${out:-no answer})"
  sleep 0.1
done
log "page ready after about $((SECONDS - start)) s"

# Baseline: nothing plays yet, the sink must be silent (checks the meter).
record 0.5 "$tmp/idle.raw"
read -r idle_rms idle_peak _ <<<"$(levels "$tmp/idle.raw" 0 0.5)"
log "idle:    rms=$idle_rms peak=$idle_peak"
float_cmp "$idle_rms" '<' "$STOP_RMS_MAX" || fail "the sink is not silent before play (rms $idle_rms)"

# Play, record 5 s, measure the last 3 s (the first 2 s cover evaluation
# and the start of WebKit's GStreamer pipeline).
call "$WIN_PATH" Activate play '[]' '{}' >/dev/null || fail "activating 'play' failed"
record 5 "$tmp/play.raw"
read -r play_rms play_peak play_onset play_env <<<"$(levels "$tmp/play.raw" 2 5)"
# Streams into the sink, for telling "no stream" from "a silent stream".
streams=$(pactl list short sink-inputs 2>/dev/null | wc -l)
log "playing: rms=$play_rms peak=$play_peak (seconds 2-5; sound began at ${play_onset} s; $streams stream(s) into $SINK)"
log "         rms per 0.5 s: $play_env"
float_cmp "$play_rms" '>' "$PLAY_RMS_MIN" || fail "no sound while playing: rms $play_rms <= $PLAY_RMS_MIN"

# Stop, record 5 s, measure the last 1.5 s: notes already scheduled,
# releases and reverb tails fade out within about 1.5 s of the stop.
call "$WIN_PATH" Activate stop '[]' '{}' >/dev/null || fail "activating 'stop' failed"
record 5 "$tmp/stop.raw"
read -r stop_rms stop_peak _ stop_env <<<"$(levels "$tmp/stop.raw" 3.5 5)"
log "stopped: rms=$stop_rms peak=$stop_peak (seconds 3.5-5 after stop)"
log "         rms per 0.5 s: $stop_env"
float_cmp "$stop_rms" '<' "$STOP_RMS_MAX" || fail "still sounding after stop: rms $stop_rms >= $STOP_RMS_MAX"
float_cmp "$stop_peak" '<' "$STOP_PEAK_MAX" || fail "still sounding after stop: peak $stop_peak >= $STOP_PEAK_MAX"

# Quit and make sure the app and its WebKit helpers are gone.
call "$APP_PATH" Activate quit '[]' '{}' >/dev/null || fail "activating 'app.quit' failed"
deadline=$((SECONDS + 10))
while kill -0 "$app_pid" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the app did not exit within 10 s of app.quit"
  sleep 0.1
done
wait "$app_pid"
app_rc=$?
app_pid_done=$app_pid
app_pid=
[ "$app_rc" -eq 0 ] || fail "the app exited with status $app_rc"
deadline=$((SECONDS + 10))
while left=$(pgrep -g "$app_pid_done" 2>/dev/null | tr '\n' ' ') && [ -n "$left" ]; do
  if [ $SECONDS -ge $deadline ]; then
    ps -o pid,args -p "${left// /,}" >&2
    kill -KILL -- "-$app_pid_done" 2>/dev/null
    fail "processes of the app left 10 s after it quit: $left"
  fi
  sleep 0.1
done

log "PASS: playing rms $play_rms > $PLAY_RMS_MIN; stopped rms $stop_rms < $STOP_RMS_MAX"
exit 0
