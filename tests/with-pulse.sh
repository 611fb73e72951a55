#!/usr/bin/env bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Runs a command with a private PulseAudio whose default sink is a null sink,
# so a test can record what the app really plays (parecord on the sink's
# monitor). The socket lives in a private XDG_RUNTIME_DIR, which WebKit's
# bubblewrap sandbox exposes to the web process. Exports SJ_TEST_PULSE_SINK
# (the sink's name) to the command. A second null sink stands for a
# microphone: its monitor is the default source, so what a test plays into
# SJ_TEST_PULSE_MIC (espeak-ng's speech) is what the app hears. A faint
# noise (about -65 dBFS) streams into it all along, as a real microphone
# always delivers audio with a noise floor (a monitor of an idle sink
# delivers nothing, and digital silence is nothing a microphone gives). Without pulseaudio or pactl the
# command runs without it (and such tests skip).
#
# Usage: with-pulse.sh COMMAND [ARGS...]
set -u

SINK=sjnull
MIC=sjmic
if ! command -v pulseaudio >/dev/null 2>&1 || ! command -v pactl >/dev/null 2>&1; then
  exec "$@"
fi

runtime=$(mktemp -d "${TMPDIR:-/tmp}/sj-pulse.XXXXXX") || exit 1
chmod 0700 "$runtime"
export XDG_RUNTIME_DIR=$runtime
unset PULSE_SERVER PULSE_SINK PULSE_SOURCE

pulseaudio -n --daemonize=no --exit-idle-time=-1 \
  --disallow-exit --use-pid-file=no --log-target=stderr --log-level=error \
  -L "module-native-protocol-unix auth-anonymous=1" \
  -L "module-null-sink sink_name=$SINK rate=44100 channels=2 sink_properties=device.description=StrudelJamTest" \
  -L "module-null-sink sink_name=$MIC rate=16000 channels=1 sink_properties=device.description=StrudelJamTestMicrophone" \
  -L "module-always-sink" &
pa_pid=$!

silence_pid=
cleanup () {
  [ -n "$silence_pid" ] && kill -TERM "$silence_pid" 2>/dev/null
  kill -TERM "$pa_pid" 2>/dev/null
  wait "$pa_pid" 2>/dev/null
  rm -rf --one-file-system "$runtime"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

for _ in $(seq 100); do
  pactl info >/dev/null 2>&1 && break
  kill -0 "$pa_pid" 2>/dev/null || { echo "with-pulse: PulseAudio exited at start" >&2; exit 1; }
  sleep 0.1
done
pactl set-default-sink "$SINK" || { echo "with-pulse: cannot make $SINK the default sink" >&2; exit 1; }

pactl set-default-source "$MIC.monitor" || { echo "with-pulse: cannot make $MIC.monitor the default source" >&2; exit 1; }
# pacat's volume is cubic: 6554 of 65536 is a gain of 0.001, -60 dB. Its
# small latency keeps the null sink rendering in small blocks, so the
# monitor delivers audio within tens of milliseconds of a capture's start,
# as a real microphone does (by default, up to 2 s later: the app would take
# it for a microphone held by another program).
pacat --playback --device="$MIC" --raw --format=s16le --rate=16000 --channels=1 --volume=6554 \
  --latency-msec=20 --client-name=sj-noise-floor </dev/urandom &
silence_pid=$!
# The first audio of the monitor comes about 2 s after the server starts:
# wait for it, so that the first capture of a test hears the noise at once.
timeout 10 parec --device="$MIC.monitor" --raw --format=s16le --rate=16000 --channels=1 --latency-msec=20 \
  2>/dev/null | head -c 640 >/dev/null

export SJ_TEST_PULSE_SINK=$SINK
export SJ_TEST_PULSE_MIC=$MIC
"$@"
