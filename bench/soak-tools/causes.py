# causes.py GAPS PULSE_LOG APP_LOG [THREADS_LOG]: what the logs say around
# each dropout (issue 35, item 2), from 1 s before it to its end:
#  - the sound server's underruns, by stream (PULSE_LOG);
#  - GStreamer's underflows, clock-skew corrections and discontinuities in
#    the web process (APP_LOG, GST_DEBUG=*:2);
#  - with bench/soak --trace: JavaScriptCore's garbage collections (APP_LOG,
#    JSC_logGC=1: each collection's pause, per heap: the page's and the
#    AudioWorklet's are two heaps), and how long the web process's rendering
#    threads waited to be scheduled and how busy its main thread was
#    (THREADS_LOG, threads.py);
# and so the likely cause of each.
import re, sys

gaps_path, pulse_path, app_path = sys.argv[1:4]
threads_path = sys.argv[4] if len(sys.argv) > 4 else None

def stamped(path):
    out = []
    if not path:
        return out
    try:
        for line in open(path, "rb"):
            head, _, rest = line.partition(b" ")
            try:
                out.append((float(head), rest.decode("utf-8", "replace")))
            except ValueError:
                pass
    except OSError:
        pass
    return out

gaps = [tuple(map(float, l.split())) for l in open(gaps_path) if l.strip()]
pulse = [(t, m.group(1)) for t, l in stamped(pulse_path)
         for m in [re.search(r"(?:Implicit|Actual) underrun of '([^']*)'", l)] if m]
kinds = (("skew", re.compile(r"correct clock skew")), ("underflow", re.compile(r"[Uu]nderflow")),
         ("discont", re.compile(r"discont|resync", re.I)))
gst, gc = [], []
gc_rx = re.compile(r"\[GC<(0x[0-9a-f]+)>: START (\S+).*?p=([0-9.]+)ms")
for t, l in stamped(app_path):
    m = gc_rx.search(l)
    if m:
        gc.append((t, m.group(1), float(m.group(3))))
        continue
    for kind, rx in kinds:
        if rx.search(l):
            gst.append((t, kind))
            break

# The rendering threads: WebKit renders the graph on the AudioWorklet thread
# once the page has a worklet, else on webaudioSrcTask; webaudioSrc:src pushes.
render = {"e:_AudioWorklet", "webaudioSrcTask", "webaudioSrc:src"}
samples = []
for t, l in stamped(threads_path):
    waited = ran_main = 0.0
    fields = l.split()
    i = 0
    span = 50.0
    if fields and fields[0].startswith("span="):
        span = max(float(fields[0][5:]), 1.0)
        i = 1
    while i + 2 < len(fields):
        name = fields[i].split("/", 1)[-1]
        try:
            ran = float(fields[i + 1].split("=")[1])
            wait = float(fields[i + 2].split("=")[1])
        except (IndexError, ValueError):
            break
        if name in render:
            waited = max(waited, wait)
        if name == "main":
            ran_main = max(ran_main, ran * 50.0 / span)   # ms of every 50
        i += 3
    samples.append((t, waited, ran_main))

causes = {}
traced = bool(samples) or bool(gc)
print(f"around each dropout (from 1 s before it to its end; the first 30 of {len(gaps)}):")
for i, (t, ms, at) in enumerate(gaps):
    lo, hi = t - 1.0, t + ms / 1000 + 0.2
    streams = {}
    for pt, name in pulse:
        if lo <= pt <= hi:
            streams[name] = streams.get(name, 0) + 1
    seen = {}
    for gt, kind in gst:
        if lo <= gt <= hi:
            seen[kind] = seen.get(kind, 0) + 1
    pauses = [p for gt, heap, p in gc if lo <= gt <= hi + 0.5]
    waited = max((w for st, w, _ in samples if lo <= st <= hi), default=0.0)
    busy = max((r for st, _, r in samples if lo <= st <= hi), default=0.0)
    underrun = bool(streams or seen.get("underflow"))
    if seen.get("skew"):
        cause = "the sink's clock-skew correction"
    elif underrun and pauses and max(pauses) >= 10:
        cause = "an underrun during a garbage collection's pause"
    elif underrun and waited >= 10:
        cause = "an underrun: the rendering thread waited to be scheduled"
    elif underrun and busy >= 40:
        cause = "an underrun while the page's main thread was busy"
    elif underrun:
        cause = "an underrun: the web process's output was late"
    else:
        cause = "nothing logged: the sound server or the recorder"
    causes[cause] = causes.get(cause, 0) + 1
    if i < 30:
        under = ", ".join(f"{n} x '{s}'" for s, n in streams.items()) or "none"
        extra = ""
        if traced:
            extra = (f"; GC pauses {len(pauses)} (longest {max(pauses, default=0):.1f} ms), "
                     f"rendering thread waited up to {waited:.1f} ms a sample, main thread ran up to {busy:.1f} ms of 50")
        print(f"  at {at:7.1f} s of the recording, {ms:5.0f} ms: PulseAudio underruns {under}; "
              f"GStreamer underflows {seen.get('underflow', 0)}, skew corrections {seen.get('skew', 0)}, "
              f"discontinuities {seen.get('discont', 0)}{extra} -> {cause}")
print("dropouts by likely cause:")
for cause, n in sorted(causes.items(), key=lambda kv: -kv[1]):
    print(f"  {n:4d} x {cause}")
if traced:
    long_gc = sorted(p for _, _, p in gc)
    print(f"garbage collections: {len(gc)}, pauses over 10 ms: {sum(p >= 10 for p in long_gc)}, "
          f"longest {long_gc[-1] if long_gc else 0:.1f} ms")
    late = sorted(w for _, w, _ in samples)
    print(f"rendering thread: waited 10 ms or more in {sum(w >= 10 for w in late)} of the "
          f"notable samples, at most {late[-1] if late else 0:.1f} ms")
