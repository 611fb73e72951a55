# threads.py LOG [PROCESS NAME...]: samples the threads of the web process(es) and of the sound server every
# 50 ms (issue 35, item 2): for each thread, how long it ran and how long
# it waited to run (runnable but not scheduled: /proc/.../schedstat) in the
# sample. One line per sample that has something to say: a thread that
# waited 5 ms or more, or the page's main thread busy 40 ms or more of 50,
# and every 20th sample in any case:
#   <wall time> span=<ms> <pid>/<thread name> ran=<ms> waited=<ms> ...
# span is the sample's real length (50 ms, more when the machine is loaded).
# The names are WebKit's and GStreamer's: main (the web process's main
# thread, where the page's JavaScript runs), webaudioSrcTask and webaudioSrc:src (the Web Audio rendering and
# its GStreamer streaming thread), "e: AudioWorklet" (the worklet thread),
# threaded-ml (libpulse's), HeapHelper (the garbage collector's helpers).
import os, sys, time

period = 0.05
procs = sys.argv[2:] or ["WebKitWebProces", "pulseaudio"]
out = open(sys.argv[1], "w", buffering=1)
last = {}

def threads():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() not in procs:
                    continue
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    ran, waited, _ = map(int, f.read().split())
            except (OSError, ValueError):
                continue
            yield pid, tid, name, ran, waited

n = 0
last_time = None
deadline = time.monotonic()
while True:
    deadline += period
    now = time.time()
    parts = []
    notable = False
    seen = {}
    for pid, tid, name, ran, waited in threads():
        key = (pid, tid)
        seen[key] = (ran, waited)
        if key not in last:
            continue
        d_ran = (ran - last[key][0]) / 1e6
        d_wait = (waited - last[key][1]) / 1e6
        if d_ran < 0.05 and d_wait < 0.05:
            continue
        if d_wait >= 5 or (pid == tid and name == "WebKitWebProces" and d_ran >= 40):
            notable = True
        label = "main" if pid == tid and name == "WebKitWebProces" else name.replace(" ", "_")
        parts.append(f"{pid}/{label} ran={d_ran:.1f} waited={d_wait:.1f}")
    last = seen
    # The sample's real length: on a loaded machine this sampler is late
    # too, and a thread's figures are over that time, not 50 ms.
    span = (now - last_time) * 1000 if last_time else period * 1000
    last_time = now
    if notable or n % 20 == 0:
        out.write(f"{now:.3f} span={span:.0f} " + " ".join(parts) + "\n")
    n += 1
    pause = deadline - time.monotonic()
    if pause > 0:
        time.sleep(pause)
    else:
        deadline = time.monotonic()
