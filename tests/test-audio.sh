#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Audio integration test: plays into a private PulseAudio null sink and checks
# with parecord and a level meter on the sink's monitor that there is sound
# while playing and silence after stop. MODE (default demo):
#   demo           the first-start demo (synthesizers, and drums the built-in
#                  kit plays: nothing reaches the network)
#   drums-offline  s("bd*4, [~ sd]*2, hh*8") with no network: only the kit
#                  can sound, and the app says it plays instead
#   cache          s("casio*4") downloaded from a loopback sample host on a
#                  first start, then played from the cache on a second start
#                  with the host gone
#   remote         samples('github:user/repo') in the code: its map and file
#                  downloaded from the loopback host standing in for GitHub
#                  on a first start, then played from the cache on a second
#                  start with the host gone
# Each start is checked as follows:
#   idle     0.5 s before play are silent (the meter sees no stray sound)
#   playing  after win.play, 3 s of 100 ms blocks with RMS > 0.01 arrive
#            (the demo measures about 0.1) within 15 s
#   stopped  after win.stop, 3 s of unbroken silence (RMS < 0.0005, peak
#            < 0.005) arrive within 15 s (tails fade out in about 1.5 s)
# then app.quit, and the app and its WebKit helpers must be gone. A pass
# takes about 16 s.
#
# Usage: test-audio.sh STRUDEL_JAM_BINARY [MODE]
#
# Environment:
#   GSETTINGS_SCHEMA_DIR  directory with the compiled schema (meson passes
#                         build/data; if unset, BINARY/../../data is tried)
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
# shellcheck disable=SC2317  # functions run from traps

APP_ID=io.github.strudeljam.StrudelJam
APP_PATH=/io/github/strudeljam/StrudelJam
WIN_PATH=$APP_PATH/window/1
SINK=sjnull
RATE=44100
CHANNELS=2

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
  for tool in pulseaudio pactl parecord xvfb-run Xvfb xauth dbus-run-session gdbus python3 setsid pgrep timeout; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
  done
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
  # For runs by hand: the schema compiled in the build tree next to the binary.
  if [ -z "${GSETTINGS_SCHEMA_DIR:-}" ] && [ -f "$(dirname "$bin")/../data/gschemas.compiled" ]; then
    GSETTINGS_SCHEMA_DIR=$(cd "$(dirname "$bin")/../data" && pwd)
    export GSETTINGS_SCHEMA_DIR
  fi

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
    dbus-run-session -- bash "$self" --inner "$bin" "${2:-demo}"
  exit $?
fi

# ---------------------------------------------------------------- inner stage
bin=$2
mode=${3:-demo}

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
  stop_host
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

# meter MODE FILE: read the sink's monitor in 100 ms blocks and stop as soon
# as MODE's condition holds (or fails for good); the audio read is kept in
# FILE (raw s16le). A block is "sounding" when its RMS exceeds SOUND_RMS and
# "silent" when its RMS is below SILENT_RMS and its peak below SILENT_PEAK
# (full scale 1.0). Modes:
#   idle     read 0.5 s; holds if every block is silent
#   sound    holds once SOUND_NEEDED s of sounding blocks were read, within
#            SOUND_WITHIN s
#   silence  holds once SILENCE_NEEDED s of consecutive silent blocks were
#            read, within SILENCE_WITHIN s
# Prints one line: key=value pairs describing what was read. Exit 0 if the
# condition held, 1 if not. Waiting on the audio itself, not on a timer, is
# what makes this robust on a loaded machine, where WebKit's rendering can
# stall while playing: dropouts of 0.1-2 s were common, and one of about 4 s
# was seen, at load average 5-6 on 2 cores. (So on such a machine a stall
# could pass for the silence after stop; a stop that does not work still
# fails in nearly every run.)
SOUND_RMS=0.01
SOUND_NEEDED=3.0
SOUND_WITHIN=30            # a failure guard: the onset is logged (0.0–2.2 s seen at load 4 on 2 cores)
SILENT_RMS=0.0005       # about -66 dBFS
SILENT_PEAK=0.005
SILENCE_NEEDED=3.0
SILENCE_WITHIN=15

meter () {
  # timeout: a failure guard only, should the monitor deliver nothing.
  timeout $((SOUND_WITHIN + SILENCE_WITHIN + 10)) \
    parecord --raw --device="$SINK.monitor" --format=s16le --rate=$RATE \
      --channels=$CHANNELS --latency-msec=20 2>>"$tmp/parecord.log" \
    | python3 "$tmp/meter.py" "$1" "$2" "$RATE" "$CHANNELS" \
        "$SOUND_RMS" "$SOUND_NEEDED" "$SOUND_WITHIN" \
        "$SILENT_RMS" "$SILENT_PEAK" "$SILENCE_NEEDED" "$SILENCE_WITHIN"
  return "${PIPESTATUS[1]}"
}

# The meter's analysis; it reads the audio on its standard input.
cat >"$tmp/meter.py" <<'EOF'
import array, math, sys
mode, path = sys.argv[1], sys.argv[2]
rate, ch = int(sys.argv[3]), int(sys.argv[4])
sound_rms, sound_needed, sound_within, silent_rms, silent_peak, silence_needed, silence_within = map(float, sys.argv[5:12])
block = rate // 10                     # frames in 100 ms
limit = {'idle': 0.5, 'sound': sound_within, 'silence': silence_within}[mode]
read = sounding = run = 0.0
onset = silent_from = None
total_sq = 0.0
peak = 0.0
envelope = []                          # RMS of each 0.5 s, for the log
half_sq, half_n = 0.0, 0
held = None
src = sys.stdin.buffer
with open(path, 'wb') as out:
    while read < limit - 1e-9:
        data = src.read(block * ch * 2)
        if len(data) < block * ch * 2:
            break                      # parecord ended
        out.write(data)
        a = array.array('h')
        a.frombytes(data)
        if sys.byteorder != 'little':
            a.byteswap()
        sq = sum(x * x for x in a)
        total_sq += sq
        b_rms = math.sqrt(sq / len(a)) / 32768.0
        b_peak = max(abs(x) for x in a) / 32768.0
        peak = max(peak, b_peak)
        half_sq += sq
        half_n += len(a)
        if half_n >= rate * ch // 2:
            envelope.append(f"{math.sqrt(half_sq / half_n) / 32768.0:.3f}")
            half_sq, half_n = 0.0, 0
        if b_rms > sound_rms:
            sounding += 0.1
            if onset is None:
                onset = read
        if b_rms < silent_rms and b_peak < silent_peak:
            if run == 0:
                silent_from = read
            run += 0.1
        else:
            run = 0.0
        read += 0.1
        if mode == 'idle' and not (b_rms < silent_rms and b_peak < silent_peak):
            held = False
        if mode == 'sound' and sounding >= sound_needed - 1e-9:
            held = True
            break
        if mode == 'silence' and run >= silence_needed - 1e-9:
            held = True
            break
if held is None:
    held = mode == 'idle' and read >= limit - 1e-9
if half_n:
    envelope.append(f"{math.sqrt(half_sq / half_n) / 32768.0:.3f}")
n = max(int(read * 10 + 0.5) * block * ch, 1)
print(f"read={read:.1f}s rms={math.sqrt(total_sq / n) / 32768.0:.6f} peak={peak:.6f}"
      f" sounding={sounding:.1f}s onset={'none' if onset is None else f'{onset:.1f}s'}"
      f" silent_from={'none' if silent_from is None or run == 0 else f'{silent_from:.1f}s'}"
      f" rms_per_0.5s={','.join(envelope) or 'none'}")
sys.exit(0 if held else 1)
EOF

# ---------------------------------------------------------------- the app
call () {
  gdbus call --session --dest "$APP_ID" --object-path "$1" \
    --method org.gtk.Actions."$2" "${@:3}"
}

# session NAME [CODE]: start the app (with CODE as the saved editor text,
# else the first-start demo), wait for the page, check silence, play until
# sound comes through the sink, stop until silence, quit, and check that the
# app and its WebKit helpers are gone.
session () {
  local name=$1 code=${2:-} out ok streams app_rc app_pid_done left deadline start
  if [ -n "$code" ]; then
    mkdir -p "$XDG_DATA_HOME/strudel-jam"
    printf '%s\n' "$code" >"$XDG_DATA_HOME/strudel-jam/current.strudel.js"
  fi

  # setsid: the app leads its own process group, so WebKit's helpers can be
  # found and ended with it.
  setsid "$bin" >"$tmp/app-$name.log" 2>&1 &
  app_pid=$!
  ln -sf "app-$name.log" "$tmp/app.log"
  log "$name: started $bin (pid $app_pid)"

  # Ready when the window's 'play' action is enabled, i.e. the Strudel page is up.
  deadline=$((SECONDS + READY_TIMEOUT))
  start=$SECONDS
  while :; do
    kill -0 "$app_pid" 2>/dev/null || fail "$name: the app exited before it was ready"
    out=$(call "$WIN_PATH" Describe play 2>/dev/null) && case $out in
      "((true,"*) break ;;
    esac
    [ $SECONDS -lt $deadline ] || fail "$name: 'play' was not enabled within ${READY_TIMEOUT} s (last: ${out:-no answer})"
    sleep 0.1
  done
  log "$name: page ready after about $((SECONDS - start)) s"

  # Baseline: nothing plays yet, the sink must be silent (checks the meter).
  out=$(meter idle "$tmp/$name-idle.raw") || fail "$name: the sink is not silent before play: $out"
  log "$name: idle:    $out"

  # Play: wait until SOUND_NEEDED s of sound came through the sink.
  call "$WIN_PATH" Activate play '[]' '{}' >/dev/null || fail "$name: activating 'play' failed"
  out=$(meter sound "$tmp/$name-play.raw")
  ok=$?
  # Streams into the sink, for telling "no stream" from "a silent stream".
  streams=$(pactl list short sink-inputs 2>/dev/null | wc -l)
  log "$name: playing: $out streams=$streams"
  # What was heard goes into the failure's own line: a CI excerpt keeps the
  # FAIL line and little else.
  [ $ok -eq 0 ] || fail "$name: no sound while playing: not ${SOUND_NEEDED} s with RMS > $SOUND_RMS within ${SOUND_WITHIN} s ($out streams=$streams $(pactl list sink-inputs 2>/dev/null | grep -c 'Corked: yes') corked)"

  # Stop: wait until SILENCE_NEEDED s of unbroken silence (scheduled notes,
  # releases and reverb tails fade out within about 1.5 s of the stop).
  call "$WIN_PATH" Activate stop '[]' '{}' >/dev/null || fail "$name: activating 'stop' failed"
  out=$(meter silence "$tmp/$name-stop.raw")
  ok=$?
  log "$name: stopped: $out"
  [ $ok -eq 0 ] || fail "$name: still sounding after stop: not ${SILENCE_NEEDED} s of silence (RMS < $SILENT_RMS, peak < $SILENT_PEAK) within ${SILENCE_WITHIN} s"

  # Quit and make sure the app and its WebKit helpers are gone.
  call "$APP_PATH" Activate quit '[]' '{}' >/dev/null || fail "$name: activating 'app.quit' failed"
  deadline=$((SECONDS + 10))
  while kill -0 "$app_pid" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "$name: the app did not exit within 10 s of app.quit"
    sleep 0.1
  done
  wait "$app_pid"
  app_rc=$?
  app_pid_done=$app_pid
  app_pid=
  [ "$app_rc" -eq 0 ] || fail "$name: the app exited with status $app_rc"
  deadline=$((SECONDS + 10))
  while left=$(pgrep -g "$app_pid_done" 2>/dev/null | tr '\n' ' ') && [ -n "$left" ]; do
    if [ $SECONDS -ge $deadline ]; then
      ps -o pid,args -p "$(echo "$left" | xargs | tr ' ' ',')" >&2
      kill -KILL -- "-$app_pid_done" 2>/dev/null
      fail "$name: processes of the app left 10 s after it quit: $left"
    fi
    sleep 0.1
  done
}

# A sample host on loopback: every path is a WAV of short, loud tone bursts.
# Prints its URL; its pid is in $host_pid.
host_pid=
start_host () {
  python3 - "$tmp/host.port" <<'PY' >"$tmp/host.log" 2>&1 &
import http.server, math, struct, sys

rate, frames = 44100, 44100 // 4
samples = b''.join(struct.pack('<h', int(20000 * math.sin(2 * math.pi * 440 * i / rate) * (1 - i / frames)))
                   for i in range(frames))
wav = (b'RIFF' + struct.pack('<I', 36 + len(samples)) + b'WAVEfmt ' +
       struct.pack('<IHHIIHH', 16, 1, 1, rate, rate * 2, 2, 16) + b'data' + struct.pack('<I', len(samples)) + samples)

# A sample map, for samples('github:user/repo') (the remote mode).
sample_map = b'{"_base": "https://raw.githubusercontent.com/user/repo/main/", "ghtone": ["tone.wav"]}'

class Host(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body, kind = (sample_map, 'application/json') if self.path.endswith('/strudel.json') else (wav, 'audio/wav')
        self.send_response(200)
        self.send_header('Content-Type', kind)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        print('GET', self.path, flush=True)

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Host)
with open(sys.argv[1], 'w') as port:
    port.write(str(server.server_address[1]))
server.serve_forever()
PY
  host_pid=$!
  local deadline=$((SECONDS + 10))
  until [ -s "$tmp/host.port" ]; do
    kill -0 "$host_pid" 2>/dev/null || fail "the sample host exited at start"
    [ $SECONDS -lt $deadline ] || fail "the sample host did not start within 10 s"
    sleep 0.05
  done
  echo "http://127.0.0.1:$(cat "$tmp/host.port")"
}

stop_host () {
  [ -n "$host_pid" ] || return 0
  kill -TERM "$host_pid" 2>/dev/null
  wait "$host_pid" 2>/dev/null
  host_pid=
}

# Nothing here reaches the real sample hosts: with no host of its own, a
# test points the downloads at a port where nobody listens (no network).
export STRUDEL_JAM_SOUNDS_URL=http://127.0.0.1:9

case $mode in
  demo)
    # The first-start demo: synthesizers, and drums the built-in kit plays.
    session demo
    log "PASS: sound while playing, silence after stop"
    ;;
  drums-offline)
    # Drums alone, on a machine with no network: only the kit can sound.
    session drums 's("bd*4, [~ sd]*2, hh*8")'
    grep -q "the built-in bd plays instead" "$tmp/app-drums.log" ||
      fail "the app did not say that the built-in bd plays instead"
    log "PASS: with no network, the built-in drum kit plays"
    ;;
  cache)
    # A sample (no kit voice) downloaded on the first start, then played from
    # the cache on the second, with the host gone.
    STRUDEL_JAM_SOUNDS_URL=$(start_host) || exit 1
    export STRUDEL_JAM_SOUNDS_URL
    session first 's("casio*4")'
    grep -q "GET /dirt-samples/casio/high.wav" "$tmp/host.log" || fail "casio was not downloaded from the host"
    [ -s "$XDG_CACHE_HOME/strudel-jam/sounds/dirt-samples/casio/high.wav" ] || fail "casio is not in the cache"
    stop_host
    export STRUDEL_JAM_SOUNDS_URL=http://127.0.0.1:9
    session second
    log "PASS: downloaded once, then played from the cache with the host gone"
    ;;
  remote)
    # samples() in the code: the map and its file downloaded on the first
    # start from the host standing in for raw.githubusercontent.com, then
    # played from the cache on the second, with the host gone.
    STRUDEL_JAM_REMOTE_URL=$(start_host) || exit 1
    export STRUDEL_JAM_REMOTE_URL
    session first "samples('github:user/repo')
s(\"ghtone*4\")"
    github=raw.githubusercontent.com/user/repo/main
    grep -q "GET /$github/strudel.json" "$tmp/host.log" || fail "the sample map was not downloaded from the host"
    grep -q "GET /$github/tone.wav" "$tmp/host.log" || fail "ghtone was not downloaded from the host"
    [ -s "$XDG_CACHE_HOME/strudel-jam/sounds/remote/https/$github/tone.wav" ] || fail "ghtone is not in the cache"
    stop_host
    export STRUDEL_JAM_REMOTE_URL=http://127.0.0.1:9
    session second
    ! grep -q "could not be\|is not downloaded" "$tmp/app-second.log" ||
      fail "the second start could not have the map or its file: $(grep "could not be\|is not downloaded" "$tmp/app-second.log")"
    log "PASS: samples('github:…') downloaded once, then played from the cache with the host gone"
    ;;
  *)
    fail "unknown mode $mode"
    ;;
esac
exit 0
