#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
#
# Quitting always quits, and loses nothing (issue 27), with the real
# `strudel-jam` under Xvfb and real key events (xdotool):
#
# - empty-type-quit-restart: empties the editor (Ctrl+A, Delete) and waits
#   for the empty file on disk (the save that never finished before), types,
#   quits with Ctrl+Q at once (before the save's delay), checks the process
#   ended within 2 s and the typed text is on disk; restarts with the same
#   profile, types one more letter after the loaded text and quits: the file
#   then holds both, so the restart found the typed code in the editor.
# - quit-while-busy: every subsystem busy at once, each checked before
#   Ctrl+Q: a sound download from a loopback sample host
#   (STRUDEL_JAM_SOUNDS_URL) that sends the headers and part of the body,
#   then stalls (`s("casio*4")` played, casio not built in); OSC output
#   (`.osc()`, the Settings host and port at a loopback UDP socket, which
#   receives its messages); an agent turn streaming from a loopback model
#   that never ends it (its stream still open); voice listening
#   (Ctrl+Shift+Space, its microphone stream seen by pactl; only under
#   tests/with-pulse.sh's PulseAudio); the dry-run helper running; then the
#   page stuck in an endless loop (`while (true) {}` played). Ctrl+Q: the
#   process ends within 2 s, the code file is whole, and the dry-run helper
#   (strudel-jam-dryrun) is gone as well.
# - menu-quit: an edit, then Main Menu (F10) and its Quit item (Q): the
#   process ends within 2 s and the edit is on disk.
# - close-window: an edit, then the window asked to close as a window
#   manager does when its close button is pressed (WM_DELETE_WINDOW, sent
#   with libX11 through ctypes; Xvfb has no window manager): the process
#   ends within 2 s and the edit is on disk.
#
# TAP output. Usage: test-quit.py STRUDEL_JAM_BINARY

import ctypes
import ctypes.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1]
QUIT_LIMIT_S = 2.0
START_LIMIT_S = 90.0


def xdotool(*args):
    return subprocess.run(['xdotool', *args], capture_output=True, text=True, timeout=30)


class App:
    def __init__(self, profile, extra_env=None):
        self.profile = profile
        env = dict(os.environ)
        env.update({
            'HOME': profile,
            'XDG_DATA_HOME': os.path.join(profile, 'data'),
            'XDG_CONFIG_HOME': os.path.join(profile, 'config'),
            'XDG_CACHE_HOME': os.path.join(profile, 'cache'),
            'XDG_STATE_HOME': os.path.join(profile, 'state'),
        })
        env.update(extra_env or {})
        self.env = env
        self.proc = subprocess.Popen([BINARY], env=env, stdout=subprocess.DEVNULL, stderr=sys.stderr)
        self.window = None
        self.restarted = False

    def wait_window(self):
        deadline = time.monotonic() + START_LIMIT_S
        while time.monotonic() < deadline:
            out = xdotool('search', '--onlyvisible', '--pid', str(self.proc.pid), '--class', 'strudel').stdout.split()
            if not out:
                out = xdotool('search', '--onlyvisible', '--pid', str(self.proc.pid)).stdout.split()
            if out:
                self.window = out[-1]
                xdotool('windowfocus', '--sync', self.window)
                return
            if self.proc.poll() is not None:
                # Once, on a loaded machine, the app could not open the
                # test's display (the same Xvfb served the next case): that
                # is the test's environment, not quitting; one more start.
                if self.restarted:
                    raise RuntimeError('strudel-jam ended at start: %d' % self.proc.returncode)
                print('# strudel-jam ended at start (%d): starting it again' % self.proc.returncode)
                self.restarted = True
                self.proc = subprocess.Popen([BINARY], env=self.env, stdout=subprocess.DEVNULL, stderr=sys.stderr)
            time.sleep(0.2)
        raise RuntimeError('no window')

    def windows(self):
        """The X windows of the process that are mapped (the main window,
        and a popover's surface while it is open)."""
        return xdotool('search', '--onlyvisible', '--pid', str(self.proc.pid), '--name', '').stdout.split()

    def key(self, *keys):
        xdotool('key', '--clearmodifiers', *keys)

    def type(self, text):
        xdotool('type', '--delay', '20', text)

    def quit(self, how=None, prepare=None):
        """Ctrl+Q (or prepare(), then how()); returns the seconds from
        Ctrl+Q (or how) until the process ended."""
        if prepare is not None:
            prepare()
        start = time.monotonic()
        if how is None:
            self.key('ctrl+q')
        else:
            how()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return float('inf')
        return time.monotonic() - start

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def children(pid):
    """The processes whose parent is pid: {pid: command line}."""
    found = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                stat = f.read()
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
        except OSError:
            continue
        fields = stat[stat.rindex(')') + 2:].split()
        if fields[0] != 'Z' and int(fields[1]) == pid:
            found[int(entry)] = cmdline
    return found


def running(pid):
    """Alive and not a zombie."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(')') + 2:].split()[0] != 'Z'


def send_wm_delete_window(window):
    """What a window manager sends when the window's close button is
    pressed: a WM_PROTOCOLS client message with WM_DELETE_WINDOW."""
    class ClientMessage(ctypes.Structure):
        _fields_ = [('type', ctypes.c_int), ('serial', ctypes.c_ulong), ('send_event', ctypes.c_int),
                    ('display', ctypes.c_void_p), ('window', ctypes.c_ulong), ('message_type', ctypes.c_ulong),
                    ('format', ctypes.c_int), ('data', ctypes.c_long * 5)]

    class Event(ctypes.Union):
        _fields_ = [('xclient', ClientMessage), ('pad', ctypes.c_long * 24)]

    x11 = ctypes.CDLL(ctypes.util.find_library('X11'))
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        raise RuntimeError('cannot open the X display')
    event = Event()
    event.xclient.type = 33  # ClientMessage
    event.xclient.window = int(window)
    event.xclient.message_type = x11.XInternAtom(display, b'WM_PROTOCOLS', 0)
    event.xclient.format = 32
    event.xclient.data[0] = x11.XInternAtom(display, b'WM_DELETE_WINDOW', 0)
    event.xclient.data[1] = 0  # CurrentTime
    if not x11.XSendEvent(display, int(window), 0, 0, ctypes.byref(event)):
        raise RuntimeError('XSendEvent failed')
    x11.XFlush(display)
    x11.XCloseDisplay(display)


def code_path(profile):
    return os.path.join(profile, 'data', 'strudel-jam', 'current.strudel.js')


def read_code(profile):
    try:
        with open(code_path(profile), 'rb') as f:
            return f.read()
    except FileNotFoundError:
        return None


def wait_until(predicate, action, what, limit=START_LIMIT_S):
    """Repeats action until predicate holds: the page takes keys only once
    it is ready, which nothing outside the process can see otherwise."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        action()
        for _ in range(15):
            if predicate():
                return
            time.sleep(0.2)
    raise RuntimeError('timed out waiting for ' + (what() if callable(what) else what))


results = []


def check(ok, name, detail=''):
    results.append(ok)
    print('%s %d - %s%s' % ('ok' if ok else 'not ok', len(results), name, (' # ' + detail) if detail else ''))
    sys.stdout.flush()


def test_empty_type_quit_restart():
    profile = tempfile.mkdtemp(prefix='sj-quit-')
    app = App(profile)
    try:
        app.wait_window()
        # Ctrl+A, Delete: the empty editor is saved, as 0 bytes.
        wait_until(lambda: read_code(profile) == b'',
                   lambda: app.key('ctrl+a', 'Delete'), 'the empty code on disk')
        check(True, 'an emptied editor is saved as an empty file')

        # Typed, then quit at once: the last keystrokes are saved on the way out.
        app.type('note c e g')
        # xdotool returns once X has the keys; the page gets them a little
        # later. Well below the save's 1 s delay: the quit saves them.
        time.sleep(0.3)
        seconds = app.quit()
        check(seconds < QUIT_LIMIT_S, 'Ctrl+Q ends the process within 2 s', '%.2f s' % seconds)
        check(read_code(profile) == b'note c e g', 'the typed code is on disk', repr(read_code(profile)))

        # The restart loads it into the editor: a letter typed at its end is
        # saved after it.
        app = App(profile)
        app.wait_window()
        # The page takes keys only once it is ready, and the first keys may
        # land before the editor has its cursor at the end (the space lost,
        # the letter typed at the start): any letter typed next to the
        # restored code shows the restart found it, where an empty editor
        # would hold the letters alone.
        def restored(code):
            return code is not None and code != b'note c e g' and b'note c e g' in code

        wait_until(lambda: restored(read_code(profile)),
                   lambda: (app.key('ctrl+End'), app.type(' b')) if read_code(profile) == b'note c e g' else None,
                   lambda: 'the restarted editor to take the typed code (on disk: %r)' % read_code(profile))
        seconds = app.quit()
        check(restored(read_code(profile)), 'the restart found the typed code', repr(read_code(profile)))
        check(seconds < QUIT_LIMIT_S, 'Ctrl+Q after a restart ends the process within 2 s', '%.2f s' % seconds)
    finally:
        app.kill()
        shutil.rmtree(profile, ignore_errors=True)


def wav(seconds):
    """A mono 16-bit 44.1 kHz WAV file of a quiet tone."""
    import io
    import math
    import struct
    import wave
    out = io.BytesIO()
    with wave.open(out, 'wb') as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(b''.join(struct.pack('<h', int(3000 * math.sin(i * 0.06)))
                               for i in range(int(44100 * seconds))))
    return out.getvalue()


WAV = wav(2)


class StallingServer:
    """A loopback HTTP server that never finishes an answer: it lists its
    model, but the model's stream (the agent's turn) says a few words and
    holds; a sound file (a path under a pack, as the sample hosts serve)
    gets its headers and the first 4 KiB of its body, then nothing; any
    other request gets nothing at all."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(('127.0.0.1', 0))
        self.socket.listen(16)
        self.url = 'http://127.0.0.1:%d' % self.socket.getsockname()[1]
        self.held = []
        self.paths = []
        self.stalled = {}  # path: its connection, held mid-answer
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(conn)
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        try:
            head = b''
            while b'\r\n\r\n' not in head:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                head += chunk
            path = head.split(b' ', 2)[1].decode()
            self.paths.append(path)
            if path.endswith('/models'):
                body = b'{"data":[{"id":"test/model"}]}'
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n'
                             % len(body) + body)
            elif path.endswith('/chat/completions'):
                event = ('data: {"choices":[{"index":0,"delta":{"role":"assistant",'
                         '"content":"Let me think about the "}}]}\n\n').encode()
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n'
                             b'Transfer-Encoding: chunked\r\n\r\n' +
                             b'%x\r\n' % len(event) + event + b'\r\n')
                self.stalled[path] = conn
            elif path.endswith('.wav'):
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nContent-Length: %d\r\n\r\n'
                             % len(WAV) + WAV[:4096])
                self.stalled[path] = conn
            # ... and nothing more, ever.
        except OSError:
            pass

    def open_stalled(self, suffix):
        """The held answers to paths ending in suffix whose client is still
        there (has not closed its end)."""
        found = []
        for path, conn in list(self.stalled.items()):
            if not path.endswith(suffix):
                continue
            try:
                if conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b'':
                    continue
            except BlockingIOError:
                pass
            except OSError:
                continue
            found.append(path)
        return found

    def close(self):
        self.socket.close()
        for conn in self.held:
            conn.close()


class OscReceiver:
    """A loopback UDP socket standing in for SuperDirt: counts the
    datagrams (OSC messages or bundles) it receives."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(('127.0.0.1', 0))
        self.port = self.socket.getsockname()[1]
        self.received = 0
        threading.Thread(target=self.receive, daemon=True).start()

    def receive(self):
        while True:
            try:
                data = self.socket.recv(65536)
            except OSError:
                return
            if data.startswith(b'/') or data.startswith(b'#bundle'):
                self.received += 1

    def close(self):
        self.socket.close()


def pulse_source_outputs():
    """The streams recording from the private PulseAudio (with-pulse.sh)."""
    out = subprocess.run(['pactl', 'list', 'short', 'source-outputs'], capture_output=True, text=True, timeout=10)
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


def test_quit_while_busy():
    profile = tempfile.mkdtemp(prefix='sj-quit-busy-')
    server = StallingServer()
    samples = StallingServer()
    osc = OscReceiver()
    # A local model at the stalling server (no key, no keyring); OSC to the
    # loopback receiver.
    settings_dir = os.path.join(profile, 'config', 'glib-2.0', 'settings')
    os.makedirs(settings_dir)
    with open(os.path.join(settings_dir, 'keyfile'), 'w') as f:
        f.write("[io/github/strudeljam/StrudelJam]\nprovider='custom'\nbase-url='%s/v1'\nmodel='test/model'\n"
                "osc-host='127.0.0.1'\nosc-port=uint32 %d\n" % (server.url, osc.port))
    app = App(profile, {'STRUDEL_JAM_SOUNDS_URL': samples.url, 'GSETTINGS_BACKEND': 'keyfile'})
    try:
        app.wait_window()
        wait_until(lambda: read_code(profile) == b'',
                   lambda: app.key('ctrl+a', 'Delete'), 'the empty code on disk')
        app.type('note("c")')
        wait_until(lambda: read_code(profile) == b'note("c")', lambda: None, 'the code on disk')

        # The agent's turn: asked, answering, never done.
        app.key('ctrl+l')
        app.type('make it groovier')
        app.key('Return')
        wait_until(lambda: server.open_stalled('/chat/completions'), lambda: None,
                   lambda: 'the request to the model (requests: %s)' % server.paths, limit=30)
        check(True, 'an agent turn streams from a model that never ends it')

        # Voice: push-to-talk started, the microphone open (only with the
        # private PulseAudio of with-pulse.sh).
        if os.environ.get('SJ_TEST_PULSE_SINK'):
            before = len(pulse_source_outputs())
            app.key('ctrl+shift+space')
            deadline = time.monotonic() + 20
            while len(pulse_source_outputs()) <= before and time.monotonic() < deadline:
                time.sleep(0.2)
            check(len(pulse_source_outputs()) > before, 'voice listening has the microphone open',
                  '%d recording streams' % len(pulse_source_outputs()))
        else:
            print('# no private PulseAudio (tests/with-pulse.sh): voice not made busy')

        # OSC output playing (a synth note: nothing to download).
        app.key('ctrl+e', 'ctrl+a', 'Delete')
        code = b'note("c e g").osc()'
        app.type(code.decode())
        wait_until(lambda: read_code(profile) == code, lambda: None,
                   lambda: 'the code on disk (%r)' % read_code(profile))
        wait_until(lambda: osc.received > 0, lambda: app.key('ctrl+e', 'ctrl+Return'),
                   lambda: 'OSC messages (%d)' % osc.received, limit=30)
        check(True, '.osc() sends to the Settings host', '%d messages' % osc.received)

        # casio is no built-in sound: playing it downloads it from the
        # sample host, which stalls mid-file (the note goes on meanwhile).
        app.key('ctrl+a', 'Delete')
        code = b'stack(note("c e g").osc(), s("casio*4"))'
        app.type(code.decode())
        wait_until(lambda: read_code(profile) == code, lambda: None,
                   lambda: 'the code on disk (%r)' % read_code(profile))
        wait_until(lambda: samples.open_stalled('.wav'), lambda: app.key('ctrl+e', 'ctrl+Return'),
                   lambda: 'a sound download (sample host requests: %s)' % samples.paths, limit=30)
        check(True, 'a sound download is stalled mid-file', ', '.join(samples.open_stalled('.wav')))
        sent = osc.received
        time.sleep(1)
        check(osc.received > sent, 'OSC goes on meanwhile', '%d messages in 1 s' % (osc.received - sent))

        # The dry-run helper runs beside the app.
        helpers = [pid for pid, cmdline in children(app.proc.pid).items() if 'strudel-jam-dryrun' in cmdline]
        check(len(helpers) == 1, 'the dry-run helper runs', str(helpers))

        # The page loops forever once this is played. (Saved first: the
        # page tells the app its text 250 ms after the last key, and a page
        # that loops tells nothing more; the pending edit on quit is the
        # other cases'.)
        app.key('ctrl+e', 'ctrl+a', 'Delete')
        app.type('while (true) {}')
        wait_until(lambda: read_code(profile) == b'while (true) {}', lambda: None,
                   lambda: 'the loop on disk (%r)' % read_code(profile))
        app.key('ctrl+Return')
        time.sleep(0.3)
        busy = (samples.open_stalled('.wav'), server.open_stalled('/chat/completions'))
        check(all(busy), 'the download and the agent\'s stream are still open at Ctrl+Q', repr(busy))
        print('# requests held open: %s; %s' % (', '.join(server.paths), ', '.join(samples.paths)))
        seconds = app.quit()
        check(seconds < QUIT_LIMIT_S, 'Ctrl+Q with a download stalled, OSC playing, the agent streaming, voice '
              'listening and the page looping forever ends within 2 s', '%.2f s' % seconds)
        code = read_code(profile)
        check(code == b'while (true) {}', 'the code is on disk, whole', repr(code))
        deadline = time.monotonic() + 1.0
        while any(running(pid) for pid in helpers) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(helpers and not any(running(pid) for pid in helpers), 'the dry-run helper is gone too',
              str([pid for pid in helpers if running(pid)]))
    finally:
        app.kill()
        server.close()
        samples.close()
        osc.close()
        shutil.rmtree(profile, ignore_errors=True)


def edit_then_quit(name, how, what, prepare=None):
    """Types into the emptied editor, quits with how(app) 0.3 s later (the
    save's delay has not passed) and checks the end and the file."""
    profile = tempfile.mkdtemp(prefix='sj-quit-' + name + '-')
    app = App(profile)
    try:
        app.wait_window()
        wait_until(lambda: read_code(profile) == b'',
                   lambda: app.key('ctrl+a', 'Delete'), 'the empty code on disk')
        app.type('note a b')
        time.sleep(0.3)
        seconds = app.quit(lambda: how(app), prepare and (lambda: prepare(app)))
        check(seconds < QUIT_LIMIT_S, what + ' ends the process within 2 s', '%.2f s' % seconds)
        check(read_code(profile) == b'note a b', what + ': the edit is on disk', repr(read_code(profile)))
    finally:
        app.kill()
        shutil.rmtree(profile, ignore_errors=True)


def test_menu_quit():
    # F10 opens the Main Menu (the primary menu button); Q is its Quit's mnemonic.
    # F10 goes to the page first (WebKit hands GTK the keys the page did
    # not take), so on a loaded machine the menu opens well after the key:
    # Q is pressed once the menu's popover surface is mapped, or it would
    # be typed into the editor.
    def open_menu(app):
        before = app.windows()
        app.key('F10')
        deadline = time.monotonic() + 20
        while len(app.windows()) <= len(before) and time.monotonic() < deadline:
            time.sleep(0.1)
        print('# windows before F10: %d, after: %d' % (len(before), len(app.windows())))
    edit_then_quit('menu', lambda app: app.key('q'), 'Main Menu \u2192 Quit', open_menu)


def test_close_window():
    edit_then_quit('close', lambda app: send_wm_delete_window(app.window), 'closing the window')


def main():
    print('TAP version 13')
    sys.stdout.flush()
    tests = (test_empty_type_quit_restart, test_quit_while_busy, test_menu_quit, test_close_window)
    only = os.environ.get('SJ_TEST_QUIT_ONLY')
    for test in tests:
        if only and only not in test.__name__:
            continue
        try:
            test()
        except Exception as error:  # a test that cannot go on fails, the next runs
            check(False, test.__name__, str(error))
    print('1..%d' % len(results))
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
