# SPDX-License-Identifier: AGPL-3.0-or-later
"""Shared machinery of the Strudel Jam benchmarks (bench/startup, bench/audio,
bench/sounds).

A private Xvfb, D-Bus session bus and PulseAudio null sink; process-tree
bookkeeping (spawn, stop, descendants, PSS, CPU ticks); the loopback HTTP
server that serves the page bundle to headless Chromium with the hook script;
the org.gtk.Actions monitor that sees the app's page become ready; the demo
code extracted from src/services/page/sj-code-store.c; machine information.
Python 3 standard library only.
"""

import json
import os
import platform
import queue
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

APP_ID = "io.github.strudeljam.StrudelJam"
APP_PATH = "/io/github/strudeljam/StrudelJam"
WIN_PATH = APP_PATH + "/window/1"
REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
    # Chromium looks for a keyring on the session bus at start; on a bus
    # that can start gnome-keyring-daemon it waits for it indefinitely.
    "--password-store=basic",
    "--window-size=1280,800",  # the app's default window size
]
CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    pass


def log(*args, **kw):
    print(*args, file=sys.stderr, flush=True, **kw)


# --------------------------------------------------------------------------
# Process bookkeeping: everything we spawn is remembered and killed at exit.

class Procs:
    def __init__(self):
        self.items = []  # (name, Popen)

    def spawn(self, name, argv, **kw):
        kw.setdefault("start_new_session", True)
        p = subprocess.Popen(argv, **kw)
        self.items.append((name, p))
        return p

    def stop(self, p, grace=5.0, marker=None):
        """Ends p and everything it started: its descendants (found by
        walking /proc while p lives) and whatever is left in its session
        (every tree is started in a session of its own)."""
        if p is None:
            return
        pids = ((descendants(p.pid) if p.poll() is None else set()) | session_members(p.pid)
                | with_marker(marker))
        pids.discard(os.getpid())
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
            live = [x for x in pids if pid_alive(x)]
            if not live and p.poll() is not None:
                break
            for pid in live:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if p.poll() is not None and not any(pid_alive(x) for x in pids):
                    break
                time.sleep(0.05)
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass

    def stop_all(self):
        for name, p in reversed(self.items):
            try:
                self.stop(p, grace=2.0)
            except Exception as e:  # noqa: BLE001 - best effort at exit
                log(f"warning: could not stop {name}: {e}")
        self.items.clear()


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def read_stat(pid):
    """(ppid, sid, utime+stime ticks) or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # rest[0]=state, [1]=ppid, [2]=pgrp, [3]=session, ..., [11]=utime, [12]=stime
    return int(rest[1]), int(rest[3]), int(rest[11]) + int(rest[12]), rest[0]


def all_pids():
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def descendants(root):
    """root and all its descendants that are alive now."""
    children = {}
    for pid in all_pids():
        st = read_stat(pid)
        if st:
            children.setdefault(st[0], []).append(pid)
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.add(pid)
        todo.extend(children.get(pid, []))
    return {p for p in out if pid_alive(p)}


def session_members(sid):
    out = set()
    for pid in all_pids():
        st = read_stat(pid)
        if st and st[1] == sid and st[3] not in ("Z", "X"):
            out.add(pid)
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def mem_kib(pid):
    """(PSS, USS) in KiB from smaps_rollup; USS = Private_Clean + Private_Dirty."""
    pss = uss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith(("Private_Clean:", "Private_Dirty:")):
                    uss += int(line.split()[1])
    except OSError:
        pass
    return pss, uss


def sharers(path_part, exclude):
    """Processes outside exclude that map a file whose path contains
    path_part. They split the PSS of that file's pages with us."""
    out = []
    for pid in all_pids():
        if pid in exclude:
            continue
        try:
            with open(f"/proc/{pid}/maps") as f:
                if path_part in f.read():
                    out.append(pid)
        except OSError:
            pass
    return out


def with_marker(marker):
    """Processes whose command line mentions marker (a launch's private
    dir): helpers that detached from the tree, such as Chromium's crashpad
    handlers, still belong to that launch."""
    out = set()
    if not marker:
        return out
    needle = marker.encode()
    for pid in all_pids():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if needle in f.read() and pid_alive(pid):
                    out.add(pid)
        except OSError:
            pass
    return out


def launch_pids(root, marker=None):
    return descendants(root) | with_marker(marker)


def tree_memory(root, marker=None):
    """Summed PSS and USS (KiB) of root, its descendants and the processes
    that name marker, plus a per-process list, plus the set of pids."""
    pids = launch_pids(root, marker)
    procs = sorted(((comm(p), p, *mem_kib(p)) for p in pids), key=lambda x: -x[2])
    return sum(x[2] for x in procs), sum(x[3] for x in procs), procs, pids


def tree_cpu_ticks(root, marker=None):
    ticks = {}
    for pid in launch_pids(root, marker):
        st = read_stat(pid)
        if st:
            ticks[pid] = st[2]
    return ticks


def cpu_percent(before, after, seconds):
    used = sum(t - before.get(pid, 0) for pid, t in after.items())
    return 100.0 * used / CLK_TCK / seconds


# --------------------------------------------------------------------------
# Shared infrastructure: Xvfb, D-Bus session bus, PulseAudio, HTTP server.

def start_xvfb(procs):
    r, w = os.pipe()
    p = procs.spawn("Xvfb", ["Xvfb", "-displayfd", str(w), "-screen", "0", "1400x900x24",
                              "-nolisten", "tcp", "-noreset"],
                    pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    buf = b""
    deadline = time.monotonic() + 15
    while not buf.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([r], [], [], 0.5)
        if ready:
            chunk = os.read(r, 64)
            if not chunk:
                break
            buf += chunk
    os.close(r)
    if not buf.strip().isdigit():
        raise BenchError("Xvfb did not start (is the xvfb package installed?)")
    return ":" + buf.strip().decode()


def start_dbus(procs, env):
    p = procs.spawn("dbus-daemon", ["dbus-daemon", "--session", "--nofork", "--nopidfile",
                                    "--print-address=1"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ready, _, _ = select.select([p.stdout], [], [], 10)
    address = p.stdout.readline().decode().strip() if ready else ""
    if not address:
        raise BenchError("dbus-daemon did not start")
    return address


def start_pulse(procs, env, tmp, extra_args=()):
    """Returns a description of the audio setup; never raises. extra_args go
    to pulseaudio (bench/audio asks for --log-level=debug, to see underruns)."""
    if not shutil.which("pulseaudio"):
        return None, "no audio server (pulseaudio not installed)"
    logf = open(tmp / "pulseaudio.log", "wb")
    p = procs.spawn("pulseaudio", [
        "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
        "--disallow-exit", "--log-target=stderr", *extra_args,
        "-L", "module-native-protocol-unix auth-anonymous=1",
        "-L", "module-null-sink sink_name=bench",
    ], env=env, stdout=logf, stderr=logf)
    sock = Path(env["XDG_RUNTIME_DIR"]) / "pulse" / "native"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and p.poll() is None:
        if sock.exists() and shutil.which("pactl"):
            r = subprocess.run(["pactl", "info"], env=env, capture_output=True, text=True)
            if r.returncode == 0 and "Default Sink: bench" in r.stdout:
                return p, "PulseAudio 'bench' null sink (private server)"
        elif sock.exists():
            return p, "PulseAudio 'bench' null sink (private server; pactl missing)"
        time.sleep(0.1)
    procs.stop(p)
    return None, "no audio server (private PulseAudio failed to start, see pulseaudio.log)"


def sink_inputs(env):
    if not shutil.which("pactl"):
        return None
    r = subprocess.run(["pactl", "list", "short", "sink-inputs"], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return len([line for line in r.stdout.splitlines() if line.strip()])


KIT_SOUNDS_PREFIX = "/__sounds/"
KIT_VOICES = ("bd", "sd", "hh", "oh", "cp", "rim", "lt", "mt", "ht", "cr", "rd", "cb", "sh")


def kit_sounds_route(build):
    """A route for BenchServer that stands in for the sample hosts: any
    /__sounds/<pack>/<path> is answered with the built-in kit's WAV of the
    drum the path names (the first kit voice among its words, else bd),
    from <build>/src/services/sounds/kit. Both sides of a benchmark play the
    demo's drums from the same files over loopback: ours through
    STRUDEL_JAM_SOUNDS_URL=<server>/__sounds, Chromium with
    ?sounds=<server>/__sounds/ (kit_sounds_query())."""
    kit = Path(build) / "src" / "services" / "sounds" / "kit"
    cache = {}

    def answer(handler, path):
        words = re.split(r"[^a-z]+", path[len(KIT_SOUNDS_PREFIX):].lower())
        voice = next((w for w in words if w in KIT_VOICES), "bd")
        if voice not in cache:
            try:
                cache[voice] = (kit / f"{voice}-0.wav").read_bytes()
            except OSError:
                handler.send_body(b"no such kit voice (build the app first)", "text/plain", 404)
                return
        handler.send_body(cache[voice], "audio/wav")

    return {KIT_SOUNDS_PREFIX: answer}


def kit_sounds_env(port):
    """Our app's environment for kit_sounds_route()."""
    return {"STRUDEL_JAM_SOUNDS_URL": f"http://127.0.0.1:{port}{KIT_SOUNDS_PREFIX.rstrip('/')}"}


def kit_sounds_query(port):
    """Chromium's URL query for kit_sounds_route() (read by app.mjs only
    outside Strudel Jam)."""
    import urllib.parse
    return "&sounds=" + urllib.parse.quote(f"http://127.0.0.1:{port}{KIT_SOUNDS_PREFIX}", safe="")


class BenchServer:
    """Serves the bundle for Chromium, plus the hook's command channel.
    routes maps a path prefix to a function (handler, path) that answers a
    GET under it (bench/sounds serves its sample files that way)."""

    def __init__(self, root, hook, routes=None):
        self.root = Path(root)
        self.hook = Path(hook).read_bytes()
        self.routes = dict(routes or {})
        self.lock = threading.Condition()
        self.run = None
        self.ready = None  # (monotonic, payload)
        self.cmds = queue.Queue()
        self.results = {}
        self.next_id = 1
        server = self

        class Handler(SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            extensions_map = {
                "": "application/octet-stream",
                ".html": "text/html; charset=utf-8",
                ".js": "text/javascript; charset=utf-8",
                ".mjs": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8",
                ".json": "application/json",
                ".svg": "image/svg+xml",
                ".wasm": "application/wasm",
            }

            def __init__(self, *a, **kw):
                super().__init__(*a, directory=str(server.root), **kw)

            def log_message(self, *args):
                pass

            def send_body(self, body, ctype, code=200):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def query_run(self):
                q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                return q.get("run", [""])[0]

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                for prefix, route in server.routes.items():
                    if path.startswith(prefix):
                        route(self, path)
                        return
                if path in ("/", "/index.html"):
                    html = (server.root / "index.html").read_text()
                    tag = '<script src="app.js"></script>'
                    if tag not in html:
                        self.send_body(b"index.html has no app.js script tag", "text/plain", 500)
                        return
                    html = html.replace(tag, '<script src="__bench/hook.js"></script>\n    ' + tag)
                    self.send_body(html.encode(), "text/html; charset=utf-8")
                elif path == "/__bench/hook.js":
                    self.send_body(server.hook, "text/javascript; charset=utf-8")
                elif path == "/__bench/cmd":
                    run = self.query_run()
                    cmd = {"op": "noop"}
                    deadline = time.monotonic() + 20
                    while time.monotonic() < deadline:
                        if run != server.run:
                            cmd = {"op": "bye"}
                            break
                        try:
                            cmd = server.cmds.get(timeout=0.2)
                            break
                        except queue.Empty:
                            pass
                    self.send_body(json.dumps(cmd).encode(), "application/json")
                else:
                    super().do_GET()

            def do_POST(self):
                path = urllib.parse.urlsplit(self.path).path
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                now = time.monotonic()
                run = self.query_run()
                try:
                    data = json.loads(body or b"null")
                except ValueError:
                    data = None
                if run == server.run and isinstance(data, dict):
                    with server.lock:
                        if path == "/__bench/ready" and server.ready is None:
                            server.ready = (now, data)
                        elif path == "/__bench/result":
                            server.results[data.get("id")] = data
                        server.lock.notify_all()
                self.send_body(b"{}", "application/json")

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                # A browser killed mid-request is expected; anything else is
                # worth a line, not a traceback.
                exc = sys.exc_info()[1]
                if not isinstance(exc, (BrokenPipeError, ConnectionResetError)):
                    log(f"warning: bench HTTP server: {exc!r}")

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def new_run(self, run):
        with self.lock:
            self.run = run
            self.ready = None
            self.results.clear()
            while not self.cmds.empty():
                self.cmds.get_nowait()

    def wait_ready(self, timeout, alive):
        deadline = time.monotonic() + timeout
        with self.lock:
            while self.ready is None:
                if time.monotonic() > deadline or not alive():
                    return None
                self.lock.wait(0.05)
            return self.ready

    def command(self, op, timeout=30, **kw):
        with self.lock:
            cid = self.next_id
            self.next_id += 1
        self.cmds.put({"op": op, "id": cid, **kw})
        deadline = time.monotonic() + timeout
        with self.lock:
            while cid not in self.results:
                if time.monotonic() > deadline:
                    raise BenchError(f"Chromium page did not answer '{op}' within {timeout} s")
                self.lock.wait(0.05)
            return self.results.pop(cid)

    def close(self):
        self.new_run(None)
        self.httpd.shutdown()
        self.httpd.server_close()


class ActionMonitor:
    """Watches org.gtk.Actions.Changed of the app on the session bus."""

    def __init__(self, procs, env):
        self.env = env
        self.events = queue.Queue()
        self.proc = procs.spawn("gdbus monitor", ["gdbus", "monitor", "--session", "--dest", APP_ID],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                bufsize=0)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        # Wait until the monitor is up (it prints a banner at once).
        try:
            self.events.get(timeout=10)
        except queue.Empty:
            raise BenchError("gdbus monitor did not start") from None

    def _read(self):
        f = self.proc.stdout
        while True:
            line = f.readline()
            if not line:
                self.events.put((time.monotonic(), None))
                return
            self.events.put((time.monotonic(), line.decode(errors="replace").rstrip("\n")))

    def drain(self):
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    @staticmethod
    def play_enabled(line):
        """True when the line is a Changed signal on window/1 enabling 'play'."""
        prefix = WIN_PATH + ": org.gtk.Actions.Changed ("
        if not line.startswith(prefix):
            return False
        # Arguments: (as removed, a{sb} enabled-changes, a{sv} state, a{s(bgav)} added).
        # Enabled-changes is the first '{...}' group after the removed list.
        args = line[len(prefix):]
        m = re.match(r"\s*(?:@as\s*)?\[[^\]]*\],\s*(?:@a\{sb\}\s*)?\{([^{}]*)\}", args)
        if m and re.search(r"'play': true", m.group(1)):
            return True
        # 'play' newly added as enabled (4th argument) also counts.
        added = re.search(r"'play': \(true,", args)
        return bool(added)

    def wait_play_enabled(self, timeout, alive, lines):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                t, line = self.events.get(timeout=0.05)
            except queue.Empty:
                if not alive():
                    return None
                continue
            if line is None:
                raise BenchError("gdbus monitor exited")
            lines.append(line)
            if self.play_enabled(line):
                return t
        return None

    def wait_name_gone(self, timeout):
        """The app's bus name must be free before the next launch."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
                                "--object-path", "/org/freedesktop/DBus", "--method",
                                "org.freedesktop.DBus.NameHasOwner", APP_ID],
                               env=self.env, capture_output=True, text=True)
            if "false" in r.stdout:
                return True
            time.sleep(0.05)
        return False


# --------------------------------------------------------------------------

def extract_demo_code(path):
    """The C string literal demo_code[] from sj-code-store.c, decoded."""
    src = Path(path).read_text()
    m = re.search(r"demo_code\s*\[\s*\]\s*=(.*?);\s*\n", src, re.S)
    if not m:
        raise BenchError(f"could not find demo_code[] in {path}")
    raw = b""
    # String literals first, so that "//" inside a literal is not a comment.
    for tok in re.finditer(r'"((?:[^"\\\n]|\\.)*)"|/\*.*?\*/|//[^\n]*', m.group(1), re.S):
        if tok.group(1) is not None:
            raw += decode_c_escapes(tok.group(1))
    if not raw:
        raise BenchError(f"demo_code[] in {path} is empty")
    return raw.decode("utf-8")


def decode_c_escapes(s):
    out = bytearray()
    data = s.encode("utf-8")
    i = 0
    simple = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("a"): 7, ord("b"): 8, ord("f"): 12,
              ord("v"): 11, ord("\\"): 92, ord('"'): 34, ord("'"): 39, ord("?"): 63}
    while i < len(data):
        c = data[i]
        if c != 92:
            out.append(c)
            i += 1
            continue
        e = data[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == ord("x"):
            j = i + 2
            while j < len(data) and chr(data[j]) in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(data[i + 2:j], 16) & 0xFF)
            i = j
        elif chr(e) in "01234567":
            j = i + 1
            while j < len(data) and j < i + 4 and chr(data[j]) in "01234567":
                j += 1
            out.append(int(data[i + 1:j], 8) & 0xFF)
            i = j
        else:
            raise BenchError(f"unsupported escape \\{chr(e)} in demo_code[]")
    return bytes(out)


def machine_busy_ticks():
    """CPU ticks (all CPUs) spent on anything but idle and iowait so far."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - (v[4] if len(v) > 4 else 0)


def other_cores(busy0, busy1, ours_ticks, seconds):
    """How many cores, on average, went to processes not of this launch."""
    return max(0.0, (busy1 - busy0 - ours_ticks) / CLK_TCK / max(seconds, 1e-3))


def cpu_busy_fraction(interval=0.25):
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return sum(v), idle
    t1, i1 = sample()
    time.sleep(interval)
    t2, i2 = sample()
    return 1.0 - (i2 - i1) / max(1, t2 - t1)


def wait_idle(limit=0.15, timeout=10.0):
    """Waits until the machine is nearly idle (leftovers of the previous
    launch, services started on demand), so launches don't share the CPU
    with them. Returns the busy fraction seen last."""
    deadline = time.monotonic() + timeout
    busy = cpu_busy_fraction()
    while busy > limit and time.monotonic() < deadline:
        busy = cpu_busy_fraction()
    return busy


def read_loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


def drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def cmd_output(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        return (r.stdout or r.stderr).strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine_info():
    model = None
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "mem_gib": mem, "kernel": platform.release()}


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
