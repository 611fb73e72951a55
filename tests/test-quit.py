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
# - quit-while-busy: an agent turn streaming from a loopback model that
#   never ends it, the page stuck in an endless loop (Ctrl+Enter on
#   `while (true) {}`), an edit not yet saved, the sounds pointed at the same
#   server (which answers nothing), then Ctrl+Q: the process ends within 2 s
#   and the code file is whole.
#
# TAP output. Usage: test-quit.py STRUDEL_JAM_BINARY

import os
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
        self.proc = subprocess.Popen([BINARY], env=env, stdout=subprocess.DEVNULL, stderr=sys.stderr)
        self.window = None

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
                raise RuntimeError('strudel-jam ended at start: %d' % self.proc.returncode)
            time.sleep(0.2)
        raise RuntimeError('no window')

    def key(self, *keys):
        xdotool('key', '--clearmodifiers', *keys)

    def type(self, text):
        xdotool('type', '--delay', '20', text)

    def quit(self):
        """Ctrl+Q; returns the seconds until the process ended."""
        start = time.monotonic()
        self.key('ctrl+q')
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
    raise RuntimeError('timed out waiting for ' + what)


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
        wait_until(lambda: read_code(profile) == b'note c e g b',
                   lambda: (app.key('ctrl+End'), app.type(' b')) if read_code(profile) == b'note c e g' else None,
                   'the restarted editor to take the typed code')
        seconds = app.quit()
        check(read_code(profile) == b'note c e g b', 'the restart found the typed code', repr(read_code(profile)))
        check(seconds < QUIT_LIMIT_S, 'Ctrl+Q after a restart ends the process within 2 s', '%.2f s' % seconds)
    finally:
        app.kill()
        shutil.rmtree(profile, ignore_errors=True)


class StallingServer:
    """A loopback HTTP server that never finishes an answer: it lists its
    model, but the model's stream (the agent's turn) says a few words and
    holds, and any other request (a sound index, a download) gets nothing
    at all."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(('127.0.0.1', 0))
        self.socket.listen(16)
        self.url = 'http://127.0.0.1:%d' % self.socket.getsockname()[1]
        self.held = []
        self.paths = []
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
            # ... and nothing more, ever.
        except OSError:
            pass

    def close(self):
        self.socket.close()
        for conn in self.held:
            conn.close()


def test_quit_while_busy():
    profile = tempfile.mkdtemp(prefix='sj-quit-busy-')
    server = StallingServer()
    # A local model at the stalling server: no key, no keyring.
    settings_dir = os.path.join(profile, 'config', 'glib-2.0', 'settings')
    os.makedirs(settings_dir)
    with open(os.path.join(settings_dir, 'keyfile'), 'w') as f:
        f.write("[io/github/strudeljam/StrudelJam]\nprovider='custom'\nbase-url='%s/v1'\nmodel='test/model'\n"
                % server.url)
    app = App(profile, {'STRUDEL_JAM_SOUNDS_URL': server.url + '/sounds/', 'GSETTINGS_BACKEND': 'keyfile'})
    try:
        app.wait_window()
        wait_until(lambda: read_code(profile) == b'',
                   lambda: app.key('ctrl+a', 'Delete'), 'the empty code on disk')
        app.type('while (true) {}')
        wait_until(lambda: read_code(profile) == b'while (true) {}', lambda: None, 'the loop on disk')

        # The agent's turn: asked, answering, never done.
        app.key('ctrl+l')
        app.type('make it groovier')
        app.key('Return')
        wait_until(lambda: any(p.endswith('/chat/completions') for p in server.paths), lambda: None,
                   'the request to the model (requests: %s)' % server.paths, limit=30)
        check(True, 'an agent turn streams from a model that never ends it')

        # The page loops forever once this is played; a last edit is left
        # unsaved (its delay has not passed).
        app.key('ctrl+e', 'ctrl+Return')
        app.key('ctrl+End')
        app.type(' ')
        time.sleep(0.3)
        print('# requests held open by the stalling server: %s' % ', '.join(server.paths))
        seconds = app.quit()
        check(seconds < QUIT_LIMIT_S, 'Ctrl+Q with the agent streaming, the page looping forever and an edit pending '
              'ends within 2 s', '%.2f s' % seconds)
        code = read_code(profile)
        check(code is not None and code.startswith(b'while (true) {}'), 'the code is still on disk, whole', repr(code))
    finally:
        app.kill()
        server.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    print('TAP version 13')
    sys.stdout.flush()
    tests = (test_empty_type_quit_restart, test_quit_while_busy)
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
