#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""longspanctl against a stand-in daemon: output, JSON, exit statuses
(0 ok, 1 gateway error, 2 usage, 3 cannot connect), socket selection by
-s, -c CONFIG and $LONGSPAN_SOCKET, absolute reload paths, show flows and
show tm, and tune --offline printing what the gateway's tune prints; and
that docs/cli.md documents every column show flows prints, in its table and
its examples.

usage: test_cli.py LONGSPANCTL FAKE_DAEMON CLI_MD
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

CTL, DAEMON, CLI_MD = (os.path.abspath(a) for a in sys.argv[1:4])
failures = []

# A valid gateway config after its [gateway] section (for -c CONFIG).
CONF_REST = """
[port dc]
role = dc
dev = net_null0
ipv4 = 10.1.255.254/24

[port wan]
role = wan
dev = net_null1
ipv4 = 192.0.2.1/24
link_rate = 10G

[peer b]
port = wan
remote = 192.0.2.2
vni = 100
rtt = 1ms
prefix = 10.2.0.0/16
"""


def run(*args, env=None, cwd=None):
    e = dict(os.environ)
    e.pop("LONGSPAN_SOCKET", None)
    e.update(env or {})
    p = subprocess.run([CTL, *args], capture_output=True, text=True, env=e, cwd=cwd, timeout=30)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


def expect(name, result, rc, out=None, err=None):
    got_rc, got_out, got_err = result
    ok = got_rc == rc
    ok = ok and (out is None or out in got_out)
    ok = ok and (err is None or err in got_err)
    check(name, ok, f"rc={got_rc} stdout={got_out[:300]!r} stderr={got_err[:300]!r}")
    return got_out


with tempfile.TemporaryDirectory(prefix="ctl-cli-") as tmp:
    sock = os.path.join(tmp, "run", "api.sock")
    daemon = subprocess.Popen([DAEMON, sock])
    try:
        for _ in range(500):
            if os.path.exists(sock):
                break
            time.sleep(0.01)
        check("daemon socket exists", os.path.exists(sock))

        out = expect("show stats", run("-s", sock, "show", "stats"), 0, out="rx_pkts")
        check("show stats numbers", any(l.split()[:2] == ["rx_pkts", "1707"] for l in out.splitlines()))

        out = expect("--json show peers", run("-s", sock, "--json", "show", "peers"), 0)
        try:
            d = json.loads(out)
            check("peers json", d["peers"]["site-b"]["tx_pkts"] == 1040 and d["total"] == 2)
        except ValueError as e:
            check("peers json parses", False, str(e))
        out = expect("json after the command", run("-s", sock, "show", "drops", "--json"), 0)
        check("drops json", json.loads(out)["drops"]["no_route"]["count"] == 7)
        out = expect("paging options pass through",
                     run("-s", sock, "-j", "show", "peers", "--limit", "1", "--page", "2"), 0)
        check("page 2", list(json.loads(out)["peers"]) == ["site-c"])

        expect("env socket", run("show", "drops", env={"LONGSPAN_SOCKET": sock}), 0, out="no_route")
        def write_conf(name, gateway):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(gateway + CONF_REST)
            return path

        conf = write_conf("gw.conf", "[gateway]\nname = t\nsocket = %s ; inline comment\n" % sock)
        expect("-c CONFIG socket", run("-c", conf, "version"), 0, out="longspan")
        # Without a socket key the daemon's default applies: /run/longspan/NAME.sock.
        noname = write_conf("noname.conf", "[gateway]\nname = ctl-test-nobody\n")
        expect("-c CONFIG default socket", run("-c", noname, "version"), 3,
               err="cannot connect to /run/longspan/ctl-test-nobody.sock")
        bad = write_conf("bad.conf", "[gateway]\nname = t\nworkers = lots\n")
        expect("-c invalid config", run("-c", bad, "version"), 2, err="invalid configuration")
        expect("-s wins over env", run("-s", sock, "version", env={"LONGSPAN_SOCKET": "/nonexistent"}), 0)

        expect("gateway error", run("-s", sock, "show", "peers", "nobody"), 1,
               err="error: show peers: no peer named 'nobody'")
        r = run("-s", sock, "show", "peers", "nobody")
        check("error leaves stdout empty", r[1] == "", repr(r[1]))
        expect("unknown command", run("-s", sock, "frobnicate"), 1, err="unknown command 'frobnicate'")

        # Relative reload paths reach the daemon as absolute paths.
        expect("reload relative bad", run("-s", sock, "reload", "bad.conf", cwd=tmp), 1,
               err="error: reload: %s/bad.conf: not applied" % os.path.realpath(tmp))
        with open(os.path.join(tmp, "my site.conf"), "w") as f:
            f.write("")
        expect("reload path with a blank", run("-s", sock, "reload", "my site.conf", cwd=tmp), 0,
               out="reloaded %s/my site.conf" % os.path.realpath(tmp))
        expect("reload default", run("-s", sock, "reload"), 0, out="reloaded /etc/longspan/site-a.conf")

        expect("help from the gateway", run("-s", sock, "help"), 0, out="show peers [NAME]")
        expect("-h", run("-h"), 0, out="usage: longspanctl")
        expect("no command", run("-s", sock), 2, err="no command given")
        expect("bad option", run("-x", "show", "stats"), 2, err="usage:")
        expect("bad timeout", run("-t", "soon", "-s", sock, "show", "stats"), 2, err="-t: expected seconds")
        expect("-s and -c", run("-s", sock, "-c", conf, "show", "stats"), 2, err="not both")
        expect("unreadable config", run("-c", os.path.join(tmp, "missing.conf"), "show", "stats"), 2,
               err="missing.conf: No such file or directory")
        expect("request too long", run("-s", sock, "show", "x" * 2000), 2, err="request longer than 1024")
        expect("line break", run("-s", sock, "show", "a\nb"), 2, err="line breaks")

        out = expect("show flows", run("-s", sock, "show", "flows", "--sort", "pkts", "--limit", "2"), 0)
        check("flows sorted by packets",
              [l.split()[:2] for l in out.splitlines() if l.split()[:1] in (["1"], ["2"])]
              == [["1", "1"], ["2", "0"]], out)
        out = expect("show flows json", run("-s", sock, "-j", "show", "flows", "--dir", "wan"), 0)
        check("flows json", [f["dest_qpn"] for f in json.loads(out)["flows"].values()] == [22, 20])
        # docs/cli.md against what show flows prints.
        doc = open(CLI_MD).read()
        flows = json.loads(run("-s", sock, "-j", "show", "flows")[1])["flows"]
        keys = list(next(iter(flows.values())))
        table = doc[doc.index("| column (JSON key) | meaning |"):]
        table = table[:table.index("\n\n")].splitlines()[2:]
        documented = set(re.findall(r"`([^`]+)`", " ".join(row.split("|")[1] for row in table)))
        check("docs/cli.md: every show flows column in the table", set(keys) <= documented,
              f"missing {sorted(set(keys) - documented)}")
        m = re.search(r"\n    \$ longspanctl -j show flows[^\n]*\n((?:    .*\n)+)", doc)
        example = json.loads("".join(line[4:] + "\n" for line in m.group(1).splitlines()))
        check("docs/cli.md: the JSON example of show flows has every column",
              list(next(iter(example["flows"].values()))) == keys,
              f"{list(next(iter(example['flows'].values())))} != {keys}")
        text = run("-s", sock, "show", "flows")[1]
        header = [line.split() for line in text.splitlines() if line.startswith("  #")]
        doc_header = [line.split() for line in doc.splitlines() if line.startswith("      #  ")]
        check("docs/cli.md: the text example of show flows has every column",
              len(header) == 1 and header == doc_header, f"{doc_header} != {header}")

        out = expect("show tm json", run("-s", sock, "show", "queues", "--json"), 0)
        check("tm json", json.loads(out)["ports"]["wan-1"]["classes"]["roce"]["mark_decisions"] == 25)

        # tune --offline: no gateway, the same text and JSON as the gateway's tune.
        links = [
            ["--rate", "100G", "--distance", "100km"],
            ["--rate", "100G", "--rtt", "1ms"],
            ["--rate=400G", "--distance=640km", "--mtu", "9000", "--mechanisms", "A"],
            ["--rate", "25G", "--rtt", "50us", "--mechanisms", "A,C"],
        ]
        nowhere = os.path.join(tmp, "nobody.sock")
        for link in links:
            name = " ".join(link)
            gw = expect("tune " + name, run("-s", sock, "tune", *link), 0)
            off = expect("tune --offline " + name, run("-s", nowhere, "tune", "--offline", *link), 0)
            check("offline text is the gateway's: " + name, gw == off and "bdp_bytes = " in off,
                  f"{gw!r} != {off!r}")
            gw = expect("tune json " + name, run("-s", sock, "-j", "tune", *link), 0)
            off = expect("tune --offline json " + name, run("tune", *link, "--offline", "--json"), 0)
            check("offline JSON is the gateway's: " + name, json.loads(gw) == json.loads(off),
                  f"{gw!r} != {off!r}")
        out = run("tune", "--offline", "--rate", "100G", "--rtt", "1ms")[1]
        check("100G at 1 ms: BDP 12.5 MB", "bdp_bytes = 12500000  (rate x rtt / 8 = 12.50 MB)" in out, out)
        expect("tune --offline missing rtt", run("tune", "--offline", "--rate", "100G"), 2,
               err="longspanctl: tune: give --rate and one of --rtt or --distance")
        expect("tune --offline bad unit", run("tune", "--offline", "--rate", "100G", "--rtt", "1"), 2,
               err="longspanctl: tune: --rtt:")
        expect("tune --offline unknown option", run("tune", "--offline", "--speed", "1G"), 2,
               err="unknown option '--speed'")
        expect("tune --offline needs a value", run("tune", "--offline", "--rate"), 2,
               err="--rate needs a value")
        expect("tune --offline rejected link", run("tune", "--offline", "--rate", "100G", "--rtt", "20s"), 1,
               err="longspanctl: tune: rtt_ns must be at most 10 s")
        expect("tune without --offline needs the gateway", run("-s", nowhere, "tune", "--rate", "1G",
                                                               "--rtt", "1ms"), 3)

        missing = os.path.join(tmp, "nobody.sock")
        expect("cannot connect", run("-s", missing, "show", "stats"), 3,
               err="cannot connect to %s" % missing)
        expect("help without a gateway", run("-s", missing, "help"), 3, err="usage: longspanctl")
    finally:
        daemon.terminate()
        rc = daemon.wait(timeout=10)
    check("daemon exit", rc == 0, f"rc={rc}")
    check("socket removed", not os.path.exists(sock))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("all passed")
