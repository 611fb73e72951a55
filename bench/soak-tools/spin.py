# spin.py LOG (issue 35): run beside bench/soak, as a user allowed real-time
# scheduling (root here), to see what the web process does while its
# threads hog the cores. At SCHED_FIFO 90, so that it runs when they do,
# it reads every thread's schedstat each 10 ms; when one ran 80 % or more
# of the last 100 ms, it logs each runnable thread's state, policy,
# current system call and kernel stack every 10 ms while that lasts, and
# for the first two episodes where two threads are hot at once, a gdb
# backtrace of all threads (this stops the web process for a moment).
#
#   python3 bench/soak-tools/spin.py /tmp/spin.log & bench/soak --minutes 5 --trace; kill %1
#
# It found the ~1 s silences of issue 35: the page's main thread (RR 5,
# WebKit's) and an audio thread (RR 5/6) spinning, one in sched_yield (),
# while a normal-priority JIT worker, preempted, held what they waited for.
import os, sys, time, subprocess, collections
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(90))
out = open(sys.argv[1], "w", buffering=1)
gdbs = 0
def webpids():
    r = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "WebKitWebProces":
                    r.append(pid)
            except OSError: pass
    return r
hist = collections.defaultdict(collections.deque)
in_episode = False
while True:
    time.sleep(0.01)
    now = time.time()
    hot = []
    for pid in webpids():
        try: tids = os.listdir(f"/proc/{pid}/task")
        except OSError: continue
        for tid in tids:
            try:
                ran = int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
            except (OSError, ValueError): continue
            h = hist[(pid, tid)]
            h.append((now, ran))
            while h and now - h[0][0] > 0.1: h.popleft()
            if len(h) > 5 and (h[-1][1] - h[0][1]) / 1e6 >= 0.8 * (h[-1][0] - h[0][0]) * 1000 and h[-1][0] - h[0][0] > 0.08:
                hot.append((pid, tid))
    if hot:
        if not in_episode:
            out.write(f"=== episode at {now:.3f}: hot {hot}\n")
        in_episode = True
        for pid in {p for p, _ in hot}:
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
                    st = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
                    sc = open(f"/proc/{pid}/task/{tid}/syscall").read().split()[0]
                    stack = open(f"/proc/{pid}/task/{tid}/stack").read().split("\n")[:4]
                except OSError: continue
                if st[0] == "R" or (pid, tid) in hot:
                    out.write(f"{now:.3f} {tid} {comm!r} state={st[0]} prio={st[15]} policy={st[38]} syscall={sc} stack={' | '.join(s.split()[-1] if s else '' for s in stack)}\n")
            if gdbs < 2 and len(hot) >= 2:
                gdbs += 1
                try:
                    r = subprocess.run(["gdb", "-p", pid, "-batch", "-ex", "thread apply all bt 12"], capture_output=True, text=True, timeout=60)
                    out.write(f"--- gdb at {time.time():.3f}\n{r.stdout}\n---\n")
                except Exception as e:
                    out.write(f"gdb failed: {e}\n")
    elif in_episode:
        out.write(f"=== episode over at {now:.3f}\n")
        in_episode = False
