#!/bin/bash
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The render command line (issue 33), run under Xvfb (the hidden page needs
# a display): drums and a synth rendered with no network (the sound hosts
# are a closed loopback port, so the drums are the built-in kit's), the WAV
# checked (header, length = cycles / cps × 48 kHz, levels), `silence` is
# silent, stems are one file per $: layer, same length, and their sum is
# the mix; OUT.flac is a FLAC of the same length (its STREAMINFO, and sox
# decoding it when sox is there); usage errors exit 2; 0 and 100,000 cycles, a throwing pattern,
# a sound that cannot be had (no such name, or a sample not downloaded with
# the hosts unreachable) and an unwritable output give clear JSON errors
# and leave no file.
#
#   check-render-cli.sh <strudel-jam binary>
set -u

app=$1
failures=0
n=0

export XDG_CACHE_HOME=$(mktemp -d)
export XDG_CONFIG_HOME=$XDG_CACHE_HOME/config XDG_DATA_HOME=$XDG_CACHE_HOME/data
export STRUDEL_JAM_SOUNDS_URL=http://127.0.0.1:9/
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$XDG_CACHE_HOME" "$work"' EXIT

# check NAME STATUS PYTHON_CHECK ARGS…: runs the app, checks its exit status
# and its stdout (as JSON `d`) with a Python expression; `wav(path)` reads a
# WAV into (rate, channels, frames, samples).
check() {
  local name=$1 expected_status=$2 python_check=$3
  shift 3
  local status
  n=$((n + 1))
  "$app" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null
  status=$?
  if [ "$status" -ne "$expected_status" ]; then
    echo "not ok $n - $name: exit $status, expected $expected_status"
    sed 's/^/# /' "$work/stderr" | tail -20
    sed 's/^/# /' "$work/stdout" | head -20
    failures=$((failures + 1))
  elif [ -n "$python_check" ] && ! python3 - "$work/stdout" "$python_check" <<'PY' >"$work/python" 2>&1
import array, json, math, struct, sys
def wav(path):
    data = open(path, 'rb').read()
    assert data[:4] == b'RIFF' and data[8:12] == b'WAVE' and data[12:16] == b'fmt ', 'not a WAV'
    fmt, channels, rate = struct.unpack('<HHI', data[20:28])
    bits = struct.unpack('<H', data[34:36])[0]
    assert fmt == 1 and bits == 16 and data[36:40] == b'data', (fmt, bits)
    size = struct.unpack('<I', data[40:44])[0]
    assert size == len(data) - 44, 'the data chunk is not the rest of the file'
    samples = array.array('h', data[44:44 + size])
    return rate, channels, size // (2 * channels), samples
def flac_frames(path):
    data = open(path, 'rb').read()
    assert data[:4] == b'fLaC' and data[4] & 0x7f == 0, 'not a FLAC with STREAMINFO first'
    info = data[8:8 + 34]
    rate = int.from_bytes(info[10:13], 'big') >> 4
    channels = ((info[12] >> 1) & 7) + 1
    total = ((info[13] & 0x0f) << 32) | int.from_bytes(info[14:18], 'big')
    import shutil, subprocess
    if shutil.which('sox'):
        decoded = subprocess.run(['sox', path, '-t', 's16', '-'], capture_output=True, check=True).stdout
        assert len(decoded) == total * channels * 2, ('sox decodes', len(decoded), total)
    return rate, channels, total
def dbfs(samples):
    peak = max((abs(s) for s in samples), default=0)
    return 20 * math.log10(peak / 32768) if peak else -999
text = open(sys.argv[1]).read()
d = json.loads(text)
assert eval(sys.argv[2]), d
PY
  then
    echo "not ok $n - $name: fails: $python_check"
    sed 's/^/# /' "$work/python" | tail -5
    sed 's/^/# /' "$work/stdout" | head -30
    failures=$((failures + 1))
  else
    echo "ok $n - $name"
  fi
}

printf '$: s("bd*4, hh*8, ~ sd")\n' >"$work/drums.js"
printf 'note("c3 e3 g3 c4").s("sawtooth").lpf(1200)\n' >"$work/synth.js"
printf 'silence\n' >"$work/silence.js"
printf '$: s("bd*2, ~ sd").gain(.3)\n$: note("<c3 g2>*2").s("square").gain(.3)\n' >"$work/layers.js"
# Single quotes: a double-quoted string would be mini-notation.
printf '$: s("bd*4").fmap(() => { throw new Error(\x27a broken pattern\x27) })\n' >"$work/throws.js"
# Sounds that cannot be had: a name no sound has, and a sample of the
# library that is not downloaded while the hosts cannot be reached.
printf '$: s("bd*4, nosuchsound*2")\n' >"$work/nosuch.js"
printf '$: note("c3 e3").s("piano")\n' >"$work/offline.js"
mkdir "$work/locked" "$work/out-throws" "$work/out-sounds" && chmod a-w "$work/locked"
# Root writes through a folder's mode: there, a folder no one can create
# files in.
locked=$work/locked
if [ "$(id -u)" = 0 ]; then
  locked=/proc
fi

echo "1..16"

# 2 cycles at 0.5 cps: 4 s at 48 kHz, 192000 frames.
check "drums: a valid WAV of the right length, loud enough, the summary on stdout" 0 \
  "d['status'] == 'ok' and d['seconds'] == 4 and d['sampleRate'] == 48000 and (lambda w: w[0] == 48000 and w[1] == 2 and abs(w[2] - 192000) <= 128 and dbfs(w[3]) > -30)(wav('$work/drums.wav')) and d['peakDbfs'] > -30 and d['rms'] > 0" \
  --render "$work/drums.js" --cycles 2 --output "$work/drums.wav"
check "drums to FLAC: the same length, decodable" 0 \
  "d['status'] == 'ok' and d['format'] == 'flac' and flac_frames('$work/drums.flac') == (48000, 2, 192000) and d['peakDbfs'] > -30 and len(__import__('os').listdir('$work')) > 0 and not [f for f in __import__('os').listdir('$work') if f.endswith('.part')]" \
  --render "$work/drums.js" --cycles 2 --output "$work/drums.flac"
check "a synth" 0 \
  "d['status'] == 'ok' and (lambda w: abs(w[2] - 96000) <= 128 and dbfs(w[3]) > -30)(wav('$work/synth.wav'))" \
  --render "$work/synth.js" --cycles 1 --output "$work/synth.wav"
check "silence is silent" 0 \
  "d['status'] == 'ok' and d['peak'] == 0 and (lambda w: abs(w[2] - 96000) <= 128 and max(map(abs, w[3])) == 0)(wav('$work/silence.wav'))" \
  --render "$work/silence.js" --cycles 1 --output "$work/silence.wav"
check "stems: one file per layer, same length, their sum is the mix" 0 \
  "len(d['files']) == 3 and [f['layer'] for f in d['files']][0] == 'mix' and (lambda m, a, b: m[2] == a[2] == b[2] and dbfs(a[3]) > -30 and dbfs(b[3]) > -30 and max(abs(x + y - z) for x, y, z in zip(a[3], b[3], m[3])) < 0.02 * 32768)(wav('$work/mix.wav'), wav(d['files'][1]['path']), wav(d['files'][2]['path']))" \
  --render "$work/layers.js" --cycles 2 --output "$work/mix.wav" --stems "$work/stems"

check "0 cycles: a JSON error, exit 2, no file" 2 \
  "d['status'] == 'error' and d['error']['code'] == 'cycles' and '0' in d['error']['message'] and not __import__('os').path.exists('$work/zero.wav')" \
  --render "$work/drums.js" --cycles 0 --output "$work/zero.wav"
check "100,000 cycles: a JSON error, exit 2" 2 \
  "d['status'] == 'error' and d['error']['code'] == 'cycles' and '100000' in d['error']['message']" \
  --render "$work/drums.js" --cycles 100000 --output "$work/many.wav"
check "a pattern that throws: a JSON error, exit 1, no file" 1 \
  "d['status'] == 'error' and d['error']['code'] == 'pattern' and 'a broken pattern' in d['error']['message'] and not __import__('os').listdir('$work/out-throws')" \
  --render "$work/throws.js" --cycles 1 --output "$work/out-throws/throws.wav"
check "a sound that does not exist: a JSON error naming it, exit 1, no file" 1 \
  "d['status'] == 'error' and d['error']['code'] == 'pattern' and 'nosuchsound' in d['error']['message'] and not __import__('os').listdir('$work/out-sounds')" \
  --render "$work/nosuch.js" --cycles 1 --output "$work/out-sounds/nosuch.wav"
check "a sample that cannot be downloaded: a JSON error, exit 1, no file" 1 \
  "d['status'] == 'error' and d['error']['code'] == 'pattern' and d['error']['message'] and not __import__('os').listdir('$work/out-sounds')" \
  --render "$work/offline.js" --cycles 1 --output "$work/out-sounds/offline.wav"
check "an unwritable folder: a JSON error, exit 2, nothing written" 2 \
  "d['status'] == 'error' and d['error']['code'] == 'output' and '$locked' in d['error']['message'] and not [f for f in __import__('os').listdir('$locked') if 'sj-render' in f]" \
  --render "$work/drums.js" --cycles 1 --output "$locked/sj-render-out.wav"
check "usage: --output without --render" 2 "" --output "$work/x.wav"
check "usage: --render without --output or --stems" 2 "" --render "$work/drums.js"
check "usage: --render with --dry-run" 2 "" --render "$work/drums.js" --output "$work/x.wav" --dry-run "$work/drums.js"
check "usage: --cycles is not a number" 2 "" --render "$work/drums.js" --cycles many --output "$work/x.wav"
check "usage: a code file that is not there" 2 "" --render "$work/nothing.js" --output "$work/x.wav"

exit $((failures > 0))
