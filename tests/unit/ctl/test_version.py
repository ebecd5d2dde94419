#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One version everywhere: `longspand --version`, `longspanctl --version` and
the API's `version` command (served by the ctl fixture daemon through the
real command table) all print meson's project() version.

usage: test_version.py VERSION LONGSPAND LONGSPANCTL FAKE_DAEMON
"""
import json
import os
import subprocess
import sys
import tempfile
import time

VERSION = sys.argv[1]
LONGSPAND, CTL, DAEMON = (os.path.abspath(a) for a in sys.argv[2:5])
failures = []


def run(*argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}{'' if cond else ': ' + detail}")
    if not cond:
        failures.append(name)


rc, out, err = run(LONGSPAND, "--version")
words = out.split()
check("longspand --version", rc == 0 and words[:2] == ["longspand", VERSION],
      f"rc={rc} out={out!r} err={err!r}")

rc, out, err = run(CTL, "--version")
check("longspanctl --version", rc == 0 and out == f"longspanctl {VERSION}\n",
      f"rc={rc} out={out!r} err={err!r}")
rc, out, err = run(CTL, "-V")
check("longspanctl -V", rc == 0 and out == f"longspanctl {VERSION}\n",
      f"rc={rc} out={out!r} err={err!r}")

with tempfile.TemporaryDirectory(prefix="ctl-version-") as tmp:
    sock = os.path.join(tmp, "api.sock")
    daemon = subprocess.Popen([DAEMON, sock])
    try:
        for _ in range(500):
            if os.path.exists(sock):
                break
            time.sleep(0.01)
        rc, out, err = run(CTL, "-s", sock, "--json", "version")
        try:
            got = json.loads(out).get("longspan") if rc == 0 else None
        except ValueError:
            got = None
        check("API version", got == VERSION, f"rc={rc} out={out!r} err={err!r}")
        rc, out, err = run(CTL, "-s", sock, "version")
        check("API version (text)", rc == 0 and out.split()[:2] == ["longspan", VERSION],
              f"rc={rc} out={out!r} err={err!r}")
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)

sys.exit(1 if failures else 0)
