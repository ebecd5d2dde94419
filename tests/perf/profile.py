#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where longspand's forwarding time goes: instructions per packet by function
and by source line, from valgrind's callgrind on the benchmark's setup.

    /usr/bin/python3 tests/perf/profile.py --build build [--flows 1024] [--size 64]   # as root
        [--seconds 40] [--marker red] [--mechanisms A,C] [--out FILE]

No PMU is exposed on these machines (perf stat cannot count cycles), so this
counts instructions instead: callgrind runs longspand with the benchmark's
config (one worker, net_pcap RoCEv2 source -> net_null sink, tests/perf/bench.py)
under --no-huge, collecting only inside dp_worker_poll() (the worker's poll:
rx burst, pipeline, tx burst), and the totals are divided by the packets the DC
port received (the --stats line longspand prints at exit). Instruction counts
are repeatable whatever else the machine runs; they are not cycles (cache
misses and dependency chains do not show), so read them beside the cycles/pkt
of bench.py. Debug info is needed for the per-line view: configure the build
with -Ddebug=true (a release build with -g; the code is the same). valgrind
3.19 cannot decode AVX-512, which -march=native emits on these machines for
the code libdpdk's -march=corei7 does not reach (congestion/): profile a build
set up with

    meson setup build-vg --buildtype=release -Ddebug=true -Dc_args=-mno-avx512f
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

LINE_RE = re.compile(r"^\s*([\d,]+)\s+(?:\([\s\d.]+%\)\s+)?(\S.*)$")
OBJ_LABEL = {
    "librte_net_pcap": "net_pcap PMD rx burst (mbuf alloc + copy from its ring)",
    "librte_net_null": "net_null PMD tx burst (mbuf free)",
}


def annotate(cg_out, *opts):
    r = subprocess.run(["callgrind_annotate", *opts, cg_out], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("callgrind_annotate failed: " + r.stderr)
    return r.stdout


def function_rows(text):
    """(Ir, file:function [object]) rows of callgrind_annotate's function list."""
    rows, in_list = [], False
    for line in text.splitlines():
        if line.startswith("Ir") and "file:function" in line:
            in_list = True
            continue
        if in_list:
            if line.startswith("-- Auto-annotated") or line.startswith("-----") and rows:
                break
            m = LINE_RE.match(line)
            if m:
                rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    return rows


def label(fn):
    for obj, name in OBJ_LABEL.items():
        if obj in fn and "???" in fn:
            return name + " `" + fn.split()[0] + "`"
    fn = re.sub(r"\s*\[.*\]$", "", fn)
    fn = fn.replace("/work/main/", "").replace(os.path.abspath(".") + "/", "")
    fn = re.sub(r"^.*?/\.\./", "", fn)
    fn = fn.replace("/usr/include/dpdk/../x86_64-linux-gnu/dpdk/", "dpdk/")
    fn = fn.replace("/usr/include/dpdk/", "dpdk/")
    fn = re.sub(r"^\./[^:]*/", "libc ", fn)
    return "`" + fn + "`"


def source_lines(text, pkts, top):
    """Hottest annotated source lines (self Ir) over every auto-annotated file."""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"-- Auto-annotated source: (.*)", line)
        if m:
            cur = m.group(1)
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*([\d,]+)\s+(?:\([\s\d.]+%\)\s+)?(.*)$", line)
        if not m or "=>" in m.group(2):
            continue
        src = m.group(2).strip()
        if src.startswith("events annotated") or src.startswith("<"):
            continue
        ir = int(m.group(1).replace(",", ""))
        out.append((ir, cur, src))
    out.sort(reverse=True)
    rows = []
    for ir, f, src in out[:top]:
        f = re.sub(r"^.*?/\.\./", "", f).replace("/usr/include/dpdk/", "dpdk/")
        rows.append("| %.1f | %s | `%s` |" % (ir / pkts, os.path.basename(f), src.replace("|", "\\|")[:90]))
    return rows


def line_costs(cg_out):
    """Self Ir per (source file, line) from a callgrind.out file (positions:
    line), the way callgrind_annotate reads it: inlined code is charged to the
    file and line it is written at (fi=/fe=), call costs are skipped."""
    names = {}
    costs = {}
    cur_file, cur_obj, line_no, pending_call = "", "", 0, False

    def name(ns, v):
        m = re.match(r"\((\d+)\)\s*(.*)$", v)
        if not m:
            return v
        if m.group(2):
            names[(ns, m.group(1))] = m.group(2)
        return names.get((ns, m.group(1)), "")

    with open(cg_out, errors="replace") as f:
        for line in f:
            c = line[0] if line else ""
            if c.isdigit() or c in "+-*":
                pos, _, rest = line.partition(" ")
                if pos == "*":
                    n = line_no
                elif pos[0] in "+-":
                    n = line_no + int(pos)
                else:
                    n = int(pos)
                line_no = n
                if pending_call:
                    pending_call = False
                    continue
                ir = int(rest.split()[0]) if rest.strip() else 0
                # No debug info: charge the object (a PMD, libc) instead.
                key = (cur_file, n) if cur_file not in ("", "???") else ("@" + cur_obj, 0)
                costs[key] = costs.get(key, 0) + ir
            elif line.startswith(("fl=", "fi=", "fe=")):
                cur_file = name("fl", line[3:].strip())
            elif line.startswith(("cfi=", "cfl=")):
                name("fl", line[4:].strip())
            elif line.startswith("ob="):
                cur_obj = name("ob", line[3:].strip())
            elif line.startswith("fn="):
                name("fn", line[3:].strip())
            elif line.startswith(("cfn=", "cob=")):
                name(line[1:3], line[4:].strip())
            elif line.startswith("calls="):
                pending_call = True
    return costs


# A function definition starts at column 0 with its name (Longspan and DPDK
# .c style) or with its return type and name on one line (DPDK headers).
FUNC_DEF_RE = re.compile(r"^(?:[A-Za-z_][\w\s\*]*?[\s\*])?([A-Za-z_]\w*)\(")
NOT_FUNC = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def by_source_function(costs):
    """Sum line costs over the C function each line is written in, found by
    the DPDK/Longspan style of a definition: the name at column 0."""
    out = {}
    for (path, n), ir in costs.items():
        if path.startswith("@"):
            key = (os.path.basename(path[1:]), "(object without debug info)")
        elif not path.endswith((".c", ".h")) or not os.path.exists(path):
            key = (os.path.basename(path) or "??", "(no source)")
        else:
            if path not in by_source_function.cache:
                starts = []
                with open(path, errors="replace") as f:
                    for i, text in enumerate(f, 1):
                        m = FUNC_DEF_RE.match(text)
                        if (m and m.group(1) not in NOT_FUNC and ";" not in text
                                and "=" not in text.split("(")[0]):
                            starts.append((i, m.group(1)))
                by_source_function.cache[path] = starts
            fn = "(file scope)"
            for start, fname in by_source_function.cache[path]:
                if start <= n:
                    fn = fname
                else:
                    break
            key = (os.path.basename(path), fn)
        out[key] = out.get(key, 0) + ir
    return out


by_source_function.cache = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--flows", type=int, default=1024)
    ap.add_argument("--size", default="64", choices=list(bench.SIZES))
    ap.add_argument("--seconds", type=float, default=40.0,
                    help="time under valgrind after start-up (about 50x slower than native)")
    ap.add_argument("--workdir", default="/tmp/longspan-perf")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--reuse", action="store_true",
                    help="report on the callgrind output and log of an earlier run with the "
                         "same --flows/--size/--marker/--mechanisms instead of running valgrind again")
    ap.add_argument("--out", default=None, help="Markdown report (default BUILD/perf-profile.md)")
    ap.add_argument("--marker", choices=["none", "red", "sojourn", "phantom"], default="none",
                    help="[congestion] marker, as bench.py's (default none)")
    ap.add_argument("--mechanisms", default="none",
                    help="[congestion] mechanisms, as bench.py's: none, A, C or A,C")
    ap.add_argument("--hook", default=None,
                    help="a hook object (.bpf.o) at all four points, as bench.py's --hook; "
                         "its JIT'd code shows as an object without debug info")
    args = ap.parse_args()
    bench.CONGESTION["marker"] = args.marker
    bench.CONGESTION["mechanisms"] = args.mechanisms
    longspand = os.path.join(os.path.abspath(args.build), "longspand")
    longspanctl = os.path.join(os.path.abspath(args.build), "control", "longspanctl")
    if os.geteuid() != 0 or not os.access(longspand, os.X_OK):
        print("profile: needs root and a built %s" % longspand, file=sys.stderr)
        return bench.EXIT_SKIP
    for tool in ("valgrind", "callgrind_annotate"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            print("profile: needs %s (Debian package valgrind)" % tool, file=sys.stderr)
            return bench.EXIT_SKIP
    os.makedirs(args.workdir, exist_ok=True)

    payload = bench.SIZES[args.size]
    bench.check_frames_with_scapy(payload)
    pcap = os.path.join(args.workdir, "roce-%dflows-%s.pcap" % (args.flows, args.size))
    if not os.path.exists(pcap):
        bench.write_pcap(pcap, args.flows, payload)
    tag = "cg-%d-%s-%s-%s%s" % (args.flows, args.size, args.marker, args.mechanisms.replace(",", ""),
                                "-hook" if args.hook else "")
    sock = os.path.join(args.workdir, "profile.sock")
    conf = os.path.join(args.workdir, "profile.conf")
    bench.write_config(conf, sock, pcap, max(args.flows, bench.MIN_PCAP_PKTS) + bench.MBUF_SLACK,
                       "lsperf-%d-%s" % (os.getpid(), tag), flows=args.flows,
                       hook=os.path.abspath(args.hook) if args.hook else None)
    cg_out = os.path.join(args.workdir, "callgrind-%s.out" % tag)
    logp = os.path.join(args.workdir, "callgrind-%s.log" % tag)
    if args.reuse and os.path.exists(cg_out) and os.path.exists(logp):
        return report(args, cg_out, logp, payload)
    if os.path.exists(sock):
        os.unlink(sock)
    # --fair-sched: valgrind runs one thread at a time, and with its default
    # lock a busy-polling worker can starve the control thread (API socket).
    cmd = ["valgrind", "--tool=callgrind", "--fair-sched=yes", "--callgrind-out-file=" + cg_out,
           "--toggle-collect=dp_worker_poll", longspand, "-c", conf, "--stats",
           "--no-huge", "-m", "1024"]
    print("profile: %s" % " ".join(cmd), file=sys.stderr)
    with open(logp, "w") as logf:
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300
            while subprocess.run([longspanctl, "-s", sock, "show", "stats"],
                                 capture_output=True).returncode != 0:
                if p.poll() is not None or time.monotonic() > deadline:
                    with open(logp, errors="replace") as f:
                        if "SIGILL" in f.read():
                            raise SystemExit("profile: valgrind met an instruction it cannot "
                                             "run (AVX-512?): build with -Dc_args=-mno-avx512f "
                                             "(log %s)" % logp)
                    raise SystemExit("profile: longspand did not start under valgrind (log %s)" % logp)
                time.sleep(0.5)
            time.sleep(args.seconds)
        finally:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            p.wait(600)
    return report(args, cg_out, logp, payload)


def report(args, cg_out, logp, payload):
    with open(logp, errors="replace") as f:
        log = f.read()
    m = re.findall(r"dc rx (\d+) tx \d+; wan rx \d+ tx (\d+);.*drops (\d+)", log)
    if not m:
        raise SystemExit("profile: no final --stats line in %s" % logp)
    pkts, wan_tx, drops = (int(x) for x in m[-1])
    if pkts == 0 or drops != 0:
        raise SystemExit("profile: %d packets, %d drops: not the forwarding path" % (pkts, drops))

    incl = function_rows(annotate(cg_out, "--inclusive=yes", "--threshold=99.9"))
    self_text = annotate(cg_out, "--inclusive=no", "--threshold=99.9", "--auto=yes",
                         "--show-percs=no", "--context=0")
    selfrows = function_rows(self_text)
    total = next(ir for ir, fn in incl if "PROGRAM TOTALS" in fn) if any(
        "PROGRAM TOTALS" in fn for _, fn in incl) else max(ir for ir, _ in incl)
    rep = [
        "# longspand instruction profile",
        "",
        "- %d flows, %d B frames; %d packets forwarded under callgrind (%d sent to the WAN port)"
        % (args.flows, payload + bench.ROCE_OVERHEAD, pkts, wan_tx),
        "- command: `valgrind --tool=callgrind --fair-sched=yes --toggle-collect=dp_worker_poll longspand -c CONF "
        "--stats --no-huge -m 1024` (tests/perf/profile.py)",
        "- total inside dp_worker_poll: **%.0f instructions per packet**" % (total / pkts),
        "",
        "## Inclusive (function and everything it calls), instructions per packet",
        "",
        "| Ir/pkt | share | function |",
        "|---|---|---|",
    ]
    seen = set()
    for ir, fn in incl:
        if "PROGRAM TOTALS" in fn or ir < total * 0.01 or fn in seen:
            continue
        seen.add(fn)
        if any(k in fn for k in ("clone.S", "start_thread", "dp_worker_main", "librte_eal.so")):
            continue
        rep.append("| %.1f | %.1f%% | %s |" % (ir / pkts, 100.0 * ir / total, label(fn)))
    rep += ["", "## Self (function body, inlined helpers shown by their header)", "",
            "| Ir/pkt | share | function |", "|---|---|---|"]
    for ir, fn in selfrows:
        if "PROGRAM TOTALS" in fn or ir < total * 0.005:
            continue
        rep.append("| %.1f | %.1f%% | %s |" % (ir / pkts, 100.0 * ir / total, label(fn)))
    funcs = by_source_function(line_costs(cg_out))
    rep += ["", "## By source function (inlined code charged where it is written)", "",
            "Self instructions of each C function's own lines, wherever the compiler inlined "
            "them; DPDK's inline helpers appear under their header.", "",
            "| Ir/pkt | share | file | function |", "|---|---|---|---|"]
    for (fname, fn), ir in sorted(funcs.items(), key=lambda kv: -kv[1]):
        if ir < total * 0.004:
            continue
        rep.append("| %.1f | %.1f%% | %s | `%s` |" % (ir / pkts, 100.0 * ir / total, fname, fn))
    rep += ["", "## Hottest source lines (self)", "", "| Ir/pkt | file | line |", "|---|---|---|"]
    rep += source_lines(self_text, pkts, args.top)
    text = "\n".join(rep) + "\n"
    print(text)
    out = os.path.abspath(args.out or os.path.join(os.path.abspath(args.build), "perf-profile.md"))
    with open(out, "w") as f:
        f.write(text)
    print("profile: report in %s, raw data %s" % (out, cg_out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
