#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# The music bench/voice plays into the sound server while espeak-ng speaks:
# an 8-second, 120 BPM loop (kick, off-beat hats, a sawtooth bass, a minor
# chord pad) as a 22.05 kHz mono WAV. Usage: make-music.py OUT.wav
import math
import random
import struct
import sys
import wave

RATE = 22050
BEAT = 0.5
LENGTH = 16 * BEAT
rng = random.Random(1)
n = int(RATE * LENGTH)
out = [0.0] * n


def add(start, samples):
    i0 = int(start * RATE)
    for i, v in enumerate(samples):
        if i0 + i < n:
            out[i0 + i] += v


def kick():
    return [math.sin(2 * math.pi * (50 + 100 * math.exp(-t / 0.03)) * t) * math.exp(-t / 0.15) * 0.8
            for t in (i / RATE for i in range(int(0.3 * RATE)))]


def hat():
    return [(rng.random() * 2 - 1) * math.exp(-(i / RATE) / 0.02) * 0.25 for i in range(int(0.08 * RATE))]


def saw(freq, length, gain):
    return [((freq * i / RATE) % 1.0 * 2 - 1) * gain * min(1, (length - i / RATE) * 40)
            for i in range(int(length * RATE))]


def pad(freqs, length, gain):
    return [sum(math.sin(2 * math.pi * f * i / RATE) for f in freqs) * gain / len(freqs)
            for i in range(int(length * RATE))]


for b in range(16):
    add(b * BEAT, kick())
    add(b * BEAT + BEAT / 2, hat())
bass = [55.0, 55.0, 65.41, 49.0]
for b in range(16):
    add(b * BEAT + BEAT / 2, saw(bass[(b // 4) % 4], BEAT / 2, 0.18))
for bar, chord in enumerate([[220.0, 261.63, 329.63], [174.61, 220.0, 261.63],
                             [196.0, 246.94, 293.66], [164.81, 196.0, 246.94]]):
    add(bar * 4 * BEAT, pad(chord, 4 * BEAT, 0.2))

with wave.open(sys.argv[1], 'wb') as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(RATE)
    w.writeframes(b''.join(struct.pack('<h', int(max(-1, min(1, v)) * 20000)) for v in out))
