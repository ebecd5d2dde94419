# SPDX-License-Identifier: BSD-3-Clause
"""
Fixture cases for the WAN traffic manager and the congestion mechanisms,
run by fixtures.py with their own configs:

    fixtures.py --group tm      --config fixture-tm.conf      (RED, A and C)
    fixtures.py --group sojourn --config fixture-sojourn.conf (sojourn, A)
    fixtures.py --group absorb  --config fixture-tm.conf --set congestion.cnp_forward=no

Every expected packet is built here from the behaviour the issue and the
notes specify (docs/roce-wire.md, docs/config.md), never
from the C code:

- WAN egress traffic manager: strict priority, class 0 = CNP and ACK/NAK,
  1 = RoCE data, 2 = other; a token-bucket shaper at link_rate; RED and
  phantom judge a packet at enqueue by the bytes of its class queued ahead
  of it, sojourn at dequeue by its time in the queue. Only ECT(0)/ECT(1)
  packets get CE; the inner IPv4 checksum is patched; the outer header
  copies the inner ECN (RFC 6040).
- Mechanism A: a signalled RoCE data packet going DC -> WAN (the marker
  says mark, or it arrived CE) of a flow whose sender QPN was learned from
  an ACK/NAK coming back from the WAN makes the gateway send a CNP out of
  the DC port to the local sender, at most one per QP per cnp_interval;
  with ce_clear the packet leaves without CE while a gateway CNP covers the
  QP (an upstream CE becomes ECT(0)). Without a learned QPN the CE stays.
- Mechanism C: a local receiver's ACK leaving for the WAN teaches the
  destination-side learner; the local receiver's CNP (still forwarded)
  starts shaping the matching incoming data flow; shaped packets wait and
  are released later.

The shaper's burst is not part of the spec, so cases whose packets wait in
a queue observe how many frames each step released and build the expected
frames for that split (fixtures.Case plan): order, bytes, sequence numbers,
timestamps and marks are checked exactly, only the split is observed.
"""

import ipaddress

import fxwire as w

US = 1000
MS = 1000 * US
T0 = w.CLOCK_NS

# The QPs of the cases. Data carries DestQP = the receiver's QPN; ACKs and
# CNPs carry DestQP = the data sender's QPN.
RQPN = 0x0000A1  # receiver QPN of the DC -> WAN flows (mechanism A)
SQPN = 0x00BEEF  # sender QPN, what the gateway must learn and put in its CNPs
DATA_SPORT = 0xE123  # the data flow's UDP source port (the CNP must reuse it)
ACK_SPORT = 0xD00D  # the ACKs' own source port (the CNP must not take it)
C_RQPN = 0x0000B2  # mechanism C: local receiver's QPN
C_SQPN = 0x00C3C3  # mechanism C: remote sender's QPN

# Data payload: 512 bytes, so a WRITE MIDDLE is a 556-byte inner IPv4
# packet and a 626-byte frame on the WAN (14 + 20 + 8 + 8 + 20 + 556; a
# FIRST adds a 16-byte RETH): four fit below kmin, a dozen outrun the
# shaper's burst at 100 Mb/s.
PAYLOAD = bytes(range(256)) * 2


def cnp_interval_ns(cfg):
    """The fixture's explicit cnp_interval (the gateway derives its default)."""
    assert "cnp_interval" in cfg.cong, "the mechanism A cases need an explicit cnp_interval"
    return cfg.cong_time_ns("cnp_interval", "0")


def build_tm_cases(cfg, b, api):
    """Cases for fixture-tm.conf: RED at explicit kmin/kmax, mechanisms A and C."""
    cases = []
    names = set()
    Case, Step, at_least = api.Case, api.Step, api.at_least
    kmin = cfg.cong_size("kmin")
    kmax = cfg.cong_size("kmax")
    assert kmax == kmin + 1 and cfg.cong.get("pmax") == "100%", \
        "the RED cases assume pmax = 100% and kmax = kmin + 1 (fixture-tm.conf)"
    interval = cnp_interval_ns(cfg)
    cnp_dscp = int(cfg.cong.get("cnp_dscp", "48"))
    assert "A" in cfg.cong.get("mechanisms", "") and "C" in cfg.cong.get("mechanisms", "")
    h = Helpers(cfg, b, api)

    def add(case):
        assert case.name not in names, "duplicate case " + case.name
        names.add(case.name)
        cases.append(case)

    site_b = b.site_b

    # ======================================================================
    # Mechanism A: the QPN learner and the gateway's CNPs.
    for fam, snd, rcv in (("in4", "10.1.0.1", "10.2.0.5"), ("in6", "fd00:1::1", "fd00:2::5")):
        d = [h.data(snd, rcv, 100 + i, first=(i == 0)) for i in range(6)]
        d_ce = [h.with_ecn(x, w.CE) for x in d]
        ack = h.ack(rcv, snd, 100)
        cnp = w.gateway_cnp(cfg, snd, rcv, SQPN, DATA_SPORT, cnp_dscp)
        t2 = T0 + 1 * US
        steps = [
            Step("dc", [d[0]], T0, out={"wan": [h.fwd(d[0], 0, T0)]},
                 counters={"learn data_unknown src": 1, "mech cnp_sent": 0,
                           "tm wan 1 enq": 1, "tm wan 1 deq": 1,
                           "tm wan 1 mark_decisions": 0, "tm wan 1 ce_written": 0}),
            Step("wan", [b.gen(site_b, ack, seq=0)], T0, out={"dc": [b.dec(ack)]},
                 counters={"learn ack_learned src": 1, "mech cnp_sent": 0}),
            # CE from the DC fabric on a learned flow: a CNP, and the packet
            # leaves with ECT(0) instead of CE (ce_clear, default yes).
            Step("dc", [d_ce[1]], t2,
                 out={"dc": [cnp], "wan": [h.fwd(d_ce[1], 1, t2, ecn=w.ECT0)]},
                 counters={"learn data_known src": 1, "mech cnp_sent": 1,
                           "mech cnp_suppressed": 0, "mech cnp_no_qpn": 0,
                           "mech ce_cleared": 1, "mech cnp_no_neigh": 0,
                           # Answered in the RoCE class, though no marker decided.
                           "tm wan 1 cnp_sent": 1, "tm wan 1 ce_cleared": 1,
                           "tm wan 1 mark_decisions": 0}),
            # One nanosecond before cnp_interval has passed: suppressed, CE
            # still cleared (the QP is covered by the CNP just sent).
            Step("dc", [d_ce[2]], t2 + interval - 1,
                 out={"wan": [h.fwd(d_ce[2], 2, t2 + interval - 1, ecn=w.ECT0)]},
                 counters={"mech cnp_sent": 1, "mech cnp_suppressed": 1,
                           "mech ce_cleared": 2}),
            # cnp_interval after the first CNP: the next one goes.
            Step("dc", [d_ce[3]], t2 + interval,
                 out={"dc": [cnp], "wan": [h.fwd(d_ce[3], 3, t2 + interval, ecn=w.ECT0)]},
                 counters={"mech cnp_sent": 2, "mech cnp_suppressed": 1,
                           "mech ce_cleared": 3}),
            # Not signalled (ECT(0), queue empty): nothing happens.
            Step("dc", [d[4]], t2 + interval + 1 * US,
                 out={"wan": [h.fwd(d[4], 4, t2 + interval + 1 * US)]},
                 counters={"mech cnp_sent": 2, "mech cnp_suppressed": 1, "mech ce_cleared": 3,
                           "tm wan 1 mark_decisions": 0, "tm wan 1 ce_written": 0,
                           "tm wan 1 cnp_sent": 2, "tm wan 1 cnp_suppressed": 1,
                           "tm wan 1 ce_cleared": 3, "tm wan 0 enq": 0, "queued": 0}),
        ]
        add(Case("mecha.cnp.%s" % fam,
                 "%s data %s -> %s, the receiver's ACK over the WAN teaches sender QPN %#x; "
                 "CE data then gets a CNP on the DC port (byte for byte, ICRC, tshark) and "
                 "leaves ECT(0); again within cnp_interval: suppressed; after it: a new CNP"
                 % (fam, snd, rcv, SQPN), steps=steps))

        add(Case("mecha.no_ack.%s" % fam,
                 "%s: without the ACK no QPN is known: CE data gets no CNP (cnp_no_qpn) and "
                 "keeps CE, inner and outer" % fam,
                 steps=[Step("dc", [d[0]], T0, out={"wan": [h.fwd(d[0], 0, T0)]}),
                        Step("dc", [d_ce[1]], t2, out={"wan": [h.fwd(d_ce[1], 1, t2)]},
                             counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0,
                                       "mech ce_cleared": 0, "learn data_unknown src": 2,
                                       "learn ack_learned src": 0})]))

    snd, rcv = "10.1.0.1", "10.2.0.5"
    d = [h.data(snd, rcv, 100 + i, first=(i == 0)) for i in range(4)]
    d_ce = [h.with_ecn(x, w.CE) for x in d]
    cnp = w.gateway_cnp(cfg, snd, rcv, SQPN, DATA_SPORT, cnp_dscp)
    acks_outside = [h.ack(rcv, snd, 99), h.ack(rcv, snd, 103), h.ack(rcv, snd, 500)]
    add(Case("learn.ack_psn_outside",
             "data PSN 100..102; ACKs with PSN 99, 103 and 500 (outside the forwarded window) "
             "teach nothing (ack_psn_outside), so CE data gets no CNP; then an ACK with PSN "
             "102 (the window's top) is learned and the next CE data gets one",
             steps=[Step("dc", d[:3], T0, out={"wan": [h.fwd(x, i, T0) for i, x in
                                                      enumerate(d[:3])]}),
                    Step("wan", [b.gen(site_b, a, seq=i) for i, a in enumerate(acks_outside)],
                         T0, out={"dc": [b.dec(a) for a in acks_outside]},
                         counters={"learn ack_psn_outside src": 3, "learn ack_learned src": 0}),
                    Step("dc", [d_ce[3]], T0 + US, out={"wan": [h.fwd(d_ce[3], 3, T0 + US)]},
                         counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0}),
                    Step("wan", [b.gen(site_b, h.ack(rcv, snd, 102), seq=3)], T0 + US,
                         out={"dc": [b.dec(h.ack(rcv, snd, 102))]},
                         counters={"learn ack_learned src": 1}),
                    Step("dc", [h.with_ecn(h.data(snd, rcv, 104), w.CE)], T0 + 2 * US,
                         out={"dc": [cnp], "wan": [h.fwd(h.data(snd, rcv, 104), 4, T0 + 2 * US)]},
                         counters={"mech cnp_sent": 1, "mech cnp_no_qpn": 1,
                                   "mech ce_cleared": 1})]))

    other = h.ack("10.2.0.6", snd, 100)  # a host the data never went to
    reversed_dir = b.dc_frame(h.ack(snd, rcv, 100))  # same direction as the data
    add(Case("learn.ack_no_flow",
             "an ACK from 10.2.0.6 (no data flow of that IP pair) gives ack_no_flow; CE data "
             "then still has no QPN",
             steps=[Step("dc", [d[0]], T0, out={"wan": [h.fwd(d[0], 0, T0)]}),
                    Step("wan", [b.gen(site_b, other, seq=0)], T0, out={"dc": [b.dec(other)]},
                         counters={"learn ack_no_flow src": 1, "learn ack_learned src": 0}),
                    Step("dc", [d_ce[1]], T0 + US, out={"wan": [h.fwd(d_ce[1], 1, T0 + US)]},
                         counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0})]))
    add(Case("learn.ack_from_dc_not_src",
             "an ACK leaving the DC for the WAN (same direction as the data) does not teach "
             "the source-side learner: CE data still has no QPN",
             steps=[Step("dc", [d[0]], T0, out={"wan": [h.fwd(d[0], 0, T0)]}),
                    Step("dc", [reversed_dir], T0, out={"wan": [h.fwd(reversed_dir, 1, T0)]},
                         counters={"learn ack_learned src": 0}),
                    Step("dc", [d_ce[1]], T0 + US, out={"wan": [h.fwd(d_ce[1], 2, T0 + US)]},
                         counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0})]))

    nak = h.ack(rcv, snd, 101, syndrome=0x60)
    ack2 = h.ack(rcv, snd, 102)
    add(Case("learn.nak",
             "a NAK (PSN sequence error) in the window teaches the sender QPN like an ACK; "
             "the next ACK with the same QPN confirms it; CE data gets a CNP",
             steps=[Step("dc", d[:3], T0, out={"wan": [h.fwd(x, i, T0) for i, x in
                                                      enumerate(d[:3])]}),
                    Step("wan", [b.gen(site_b, nak, seq=0), b.gen(site_b, ack2, seq=1)], T0,
                         out={"dc": [b.dec(nak), b.dec(ack2)]},
                         counters={"learn ack_learned src": 1, "learn ack_confirmed src": 1}),
                    Step("dc", [d_ce[3]], T0 + US,
                         out={"dc": [cnp], "wan": [h.fwd(d_ce[3], 3, T0 + US, ecn=w.ECT0)]},
                         counters={"mech cnp_sent": 1, "mech ce_cleared": 1})]))

    # Two QPs between the same hosts: the PSN window tells their ACKs apart.
    qp1 = dict(dqpn=RQPN, sport=DATA_SPORT)
    qp2 = dict(dqpn=RQPN + 1, sport=DATA_SPORT + 1)
    sqpn2 = SQPN + 1
    q1 = [h.data(snd, rcv, 100 + i, **qp1) for i in range(5)]
    q2 = [h.data(snd, rcv, 5000 + i, **qp2) for i in range(5)]
    a1, a2 = h.ack(rcv, snd, 101), h.ack(rcv, snd, 5001, dqpn=sqpn2)
    cnp1 = cnp
    cnp2 = w.gateway_cnp(cfg, snd, rcv, sqpn2, qp2["sport"], cnp_dscp)
    t3 = T0 + 2 * MS
    mixed = [h.with_ecn(q1[3], w.CE), h.with_ecn(q2[3], w.CE), h.with_ecn(q1[4], w.CE)]
    add(Case("learn.two_qps",
             "two QPs from 10.1.0.1 to 10.2.0.5 (DestQP %#x PSN 100.., DestQP %#x PSN 5000..): "
             "each ACK teaches the QP whose PSN window holds its PSN; CE data of both QPs in "
             "one burst gets one CNP per QP (its own sender QPN and UDP port), the third "
             "packet is suppressed" % (qp1["dqpn"], qp2["dqpn"]),
             steps=[Step("dc", q1[:3], T0, out={"wan": [h.fwd(x, i, T0)
                                                       for i, x in enumerate(q1[:3])]}),
                    Step("dc", q2[:3], T0 + MS, out={"wan": [h.fwd(x, 3 + i, T0 + MS)
                                                            for i, x in enumerate(q2[:3])]}),
                    Step("wan", [b.gen(site_b, a2, seq=0)], T0 + MS, out={"dc": [b.dec(a2)]},
                         counters={"learn ack_learned src": 1}),
                    Step("dc", [h.with_ecn(q1[3], w.CE)], T0 + MS + US,
                         out={"wan": [h.fwd(mixed[0], 6, T0 + MS + US)]},
                         counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0}),
                    Step("wan", [b.gen(site_b, a1, seq=1)], T0 + MS + US,
                         out={"dc": [b.dec(a1)]}, counters={"learn ack_learned src": 2}),
                    Step("dc", mixed, t3,
                         out={"dc": [cnp1, cnp2],
                              "wan": [h.fwd(mixed[0], 7, t3, ecn=w.ECT0),
                                      h.fwd(mixed[1], 8, t3, ecn=w.ECT0),
                                      h.fwd(mixed[2], 9, t3, ecn=w.ECT0)]},
                         counters={"mech cnp_sent": 2, "mech cnp_suppressed": 1,
                                   "mech ce_cleared": 3, "mech cnp_no_qpn": 1})]))

    o2 = [h.data(snd, rcv, 101 + i, **qp2) for i in range(3)]  # PSN 101..103
    add(Case("learn.ack_ambiguous",
             "two QPs of one IP pair with overlapping PSN windows (100..102, 101..103): an ACK "
             "with PSN 102 fits both and teaches nothing (ack_ambiguous); one with PSN 100 fits "
             "only the first and is learned",
             steps=[Step("dc", q1[:3], T0, out={"wan": [h.fwd(x, i, T0)
                                                       for i, x in enumerate(q1[:3])]}),
                    Step("dc", o2, T0 + MS, out={"wan": [h.fwd(x, 3 + i, T0 + MS)
                                                        for i, x in enumerate(o2)]}),
                    Step("wan", [b.gen(site_b, h.ack(rcv, snd, 102), seq=0)], T0 + MS,
                         out={"dc": [b.dec(h.ack(rcv, snd, 102))]},
                         counters={"learn ack_ambiguous src": 1, "learn ack_learned src": 0}),
                    Step("dc", [mixed[0]], T0 + MS + US,
                         out={"wan": [h.fwd(mixed[0], 6, T0 + MS + US)]},
                         counters={"mech cnp_no_qpn": 1, "mech cnp_sent": 0}),
                    Step("wan", [b.gen(site_b, h.ack(rcv, snd, 100), seq=1)], T0 + MS + US,
                         out={"dc": [b.dec(h.ack(rcv, snd, 100))]},
                         counters={"learn ack_learned src": 1}),
                    Step("dc", [mixed[2]], T0 + MS + 2 * US,
                         out={"dc": [cnp1], "wan": [h.fwd(mixed[2], 7, T0 + MS + 2 * US,
                                                          ecn=w.ECT0)]},
                         counters={"mech cnp_sent": 1, "mech cnp_no_qpn": 1})]))

    # The gateway's own mark on a learned flow: a CNP instead of CE.
    n = 6
    burst = [h.data(snd, rcv, 101 + i) for i in range(n)]
    ahead = h.queue_ahead(burst)
    marked = [q > kmin for q in ahead]
    assert marked.count(True) >= 2 and not marked[0]
    t2 = T0 + US
    frames = [(0, h.fwd_fn(d[0]))] + [(2, h.fwd_fn(x)) for x in burst]
    steps = [Step("dc", [d[0]], T0),
             Step("wan", [b.gen(site_b, h.ack(rcv, snd, 100), seq=0)], T0,
                  out={"dc": [b.dec(h.ack(rcv, snd, 100))]},
                  counters={"learn ack_learned src": 1}),
             Step("dc", burst, t2, out={"dc": [cnp]},
                  counters={"mech cnp_sent": 1, "mech cnp_suppressed": marked.count(True) - 1,
                            "mech ce_cleared": 0, "mech cnp_no_qpn": 0}),
             # Every marker decision is answered by mechanism A (the QPN is
             # known: one CNP, the rest suppressed by the rate limit), and
             # the CNP replaces the mark: no CE is written.
             Step("dc", [], t2 + 100 * MS, counters={
                 "queued": 0, "ecn_marked": 0, "tm wan 1 ce_written": 0,
                 "tm wan 1 mark_decisions": marked.count(True), "tm wan 1 cnp_sent": 1,
                 "tm wan 1 cnp_suppressed": marked.count(True) - 1, "tm wan 1 cnp_no_qpn": 0,
                 "tm wan 1 cnp_failed": 0, "tm wan 1 ce_cleared": 0})]
    add(Case("mecha.gateway_mark",
             "learned flow, %d data packets in one burst: those enqueued above kmin (%s) are "
             "signalled by RED; the first gets a CNP, the next is suppressed, and none leaves "
             "CE (ce_clear: the gateway CNP replaces the mark, so no CE is counted)" %
             (n, ", ".join(str(i) for i, m in enumerate(marked) if m)),
             steps=steps, plan=h.queue_plan(steps, "wan", frames)))

    # ======================================================================
    # RED marking at the configured thresholds (frozen clock, one burst).
    n = 12
    burst = [h.data(snd, rcv, 200 + i) for i in range(n)]
    ahead = h.queue_ahead(burst)
    marked = [q > kmin for q in ahead]
    steps = [Step("dc", burst, T0, counters={"queued": at_least(1), "tm wan 1 enq": n}),
             *h.drain_steps("dc", 4)]
    frames = [(0, h.fwd_fn(x, m)) for x, m in zip(burst, marked)]
    steps[-1].counters.update({"queued": 0, "tm wan 1 deq": n,
                               "tm wan 1 mark_decisions": sum(marked),
                               "tm wan 1 ce_written": sum(marked),
                               "tm wan 1 cnp_no_qpn": sum(marked),
                               "ecn_marked": sum(marked),
                               "mech cnp_no_qpn": sum(marked), "tm wan 1 depth_bytes": 0})
    add(Case("tm.red.threshold",
             "%d ECT(0) data packets of %d wire bytes in one burst at a frozen clock: the %d "
             "enqueued with <= kmin (%d) bytes ahead leave unmarked, the rest CE (inner and "
             "outer, IPv4 checksum patched); the shaper holds part of the burst until the "
             "clock moves" % (n, h.frame_bytes(burst[0]), marked.count(False), kmin),
             steps=steps, plan=h.queue_plan(steps, "wan", frames)))

    # Exact thresholds. A RoCE frame here is 2 mod 4 bytes long (whole-word
    # payloads), so RoCE sees exactly kmin ahead (998 + 1002: no mark) or
    # kmin + 2 (702 + 598 + 702: marked, above kmax); UDP (class 2, ECT(1))
    # sees kmin (no mark) and kmin + 1 = kmax, where p = pmax = 1 (marked).
    def sized(size, psn):
        return h.data(snd, rcv, psn, payload_len=size - 114)

    exact = [
        ("roce_at_kmin", [sized(998, 300), sized(1002, 301), sized(702, 302)], False, 1),
        ("roce_above_kmax", [sized(702, 300), sized(598, 301), sized(702, 302),
                             sized(702, 303)], True, 1),
        ("udp_at_kmin", [h.udp_sized(snd, rcv, 1000), h.udp_sized(snd, rcv, 1000),
                         h.udp_sized(snd, rcv, 702)], False, 2),
        ("udp_at_kmax", [h.udp_sized(snd, rcv, 1000), h.udp_sized(snd, rcv, 1001),
                         h.udp_sized(snd, rcv, 702)], True, 2),
    ]
    for label, frs, last_marked, cls in exact:
        ahead = h.queue_ahead(frs)
        assert ahead[-1] == {"roce_at_kmin": kmin, "roce_above_kmax": kmin + 2,
                             "udp_at_kmin": kmin, "udp_at_kmax": kmax}[label], (label, ahead)
        assert all(q <= kmin for q in ahead[:-1])
        steps = [Step("dc", frs, T0), *h.drain_steps("dc", 3)]
        steps[-1].counters.update({"queued": 0,
                                   "tm wan %d mark_decisions" % cls: int(last_marked),
                                   "tm wan %d ce_written" % cls: int(last_marked),
                                   "ecn_marked": int(last_marked)})
        frames = [(0, h.fwd_fn(x, i == len(frs) - 1 and last_marked)) for i, x in enumerate(frs)]
        add(Case("tm.red.%s" % label,
                 "%s frames of %s wire bytes: the last sees %d bytes ahead (kmin %d, kmax %d, "
                 "pmax 100%%): %s" % (
                     "RoCE data" if cls == 1 else "UDP ECT(1)",
                     "/".join(str(h.frame_bytes(x)) for x in frs), ahead[-1], kmin, kmax,
                     "marked" if last_marked else "not marked"),
                 steps=steps, plan=h.queue_plan(steps, "wan", frames)))

    # Not-ECT above the threshold is not marked; CE stays CE; ECT(1) is marked.
    ecns = [w.ECT0] * 4 + [w.NOT_ECT, w.ECT0, w.CE, w.ECT1, w.NOT_ECT]
    burst = [h.with_ecn(h.data(snd, rcv, 400 + i), e) for i, e in enumerate(ecns)]
    ahead = h.queue_ahead(burst)
    above = [q > kmin for q in ahead]
    assert above == [False] * 4 + [True] * 5
    ect_marked = sum(1 for a, e in zip(above, ecns) if a and e in (w.ECT0, w.ECT1))
    frames = [(0, h.fwd_fn(x, a)) for x, a in zip(burst, above)]
    steps = [Step("dc", burst, T0), *h.drain_steps("dc", 4)]
    steps[-1].counters.update({"queued": 0, "tm wan 1 deq": len(burst),
                               "ecn_marked": ect_marked, "tm wan 1 ce_written": ect_marked,
                               "tm wan 1 mark_decisions": sum(above)})
    add(Case("tm.red.ect_only",
             "burst of RoCE data, ECN %s: above kmin only the ECT(0)/ECT(1) packets get CE, "
             "Not-ECT ones leave Not-ECT, CE stays CE; every one above kmin is a mark decision, "
             "ce_written counts the %d packets marked"
             % ("/".join(w.ECN_NAMES[e] for e in ecns), ect_marked),
             steps=steps, plan=h.queue_plan(steps, "wan", frames)))

    # IPv6 inner, IPv6 underlay (site-c): traffic class marked, copied outward.
    snd6, rcv6 = "fd00:1::1", "fd00:3::5"
    burst = [h.data(snd6, rcv6, 500 + i) for i in range(8)]
    ahead = h.queue_ahead(burst)
    marked = [q > kmin for q in ahead]
    frames = [(0, h.fwd_fn(x, m)) for x, m in zip(burst, marked)]
    steps = [Step("dc", burst, T0), *h.drain_steps("dc", 4)]
    steps[-1].counters.update({"queued": 0, "tm wan 1 mark_decisions": sum(marked),
                               "tm wan 1 ce_written": sum(marked),
                               "ecn_marked": sum(marked)})
    add(Case("tm.red.in6_over6",
             "8 IPv6 RoCE data packets to site-c (IPv6 underlay): those with more than kmin "
             "bytes ahead leave with CE in the inner and outer traffic class", steps=steps,
             plan=h.queue_plan(steps, "wan", frames)))

    # The per-class byte limit ([congestion] buffer), reached within one
    # burst (burst = 64 in fixture-tm.conf) so that nothing left yet:
    # 40 frames of 1614 bytes, then 977 (1 byte too many: dropped), 976
    # (exactly the limit: queued) and 200 (dropped).
    limit = cfg.cong_size("buffer")
    sizes = [1614] * 40 + [977, 976, 200]
    frs = [h.udp_sized(snd, rcv, z, tos=w.NOT_ECT) for z in sizes]
    assert [h.frame_bytes(x) for x in frs] == sizes and 40 * 1614 + 976 == limit
    kept = [x for i, x in enumerate(frs) if i not in (40, 42)]
    steps = [Step("dc", frs, T0, drops={"wan_queue_full": 2},
                  counters={"tm wan 2 enq": len(kept), "tm wan 2 drops": 2}),
             *h.drain_steps("dc", 14)]
    steps[-1].counters.update({"queued": 0, "tm wan 2 deq": len(kept)})
    add(Case("tm.buffer_limit",
             "UDP frames into class 2 at a frozen clock up to the %d-byte class limit: a frame "
             "that would exceed it is dropped (wan_queue_full), one that fills it exactly is "
             "queued; the rest leave in order" % limit,
             steps=steps, plan=h.queue_plan(steps, "wan", [(0, h.fwd_fn(x)) for x in kept])))

    # RoCE data (ECT(0), no sender QPN learned) overflowing class 1: a packet
    # the full queue drops is a congestion signal for mechanism A (answered:
    # no QPN) but no CE is written into it, since it never leaves; CE is
    # written and counted for the marked packets that do.
    n = 64
    burst = [h.data(snd, rcv, 800 + i, payload_len=1400) for i in range(n)]
    kept, q = [], 0
    for x in burst:
        if not kept or q + h.frame_bytes(x) <= limit:
            kept.append(x)
            q += h.frame_bytes(x)
    dropped = n - len(kept)
    marked = h.red_marked(kept)
    assert dropped > 0 and sum(marked) > 0
    steps = [Step("dc", burst, T0, drops={"wan_queue_full": dropped},
                  counters={"tm wan 1 drops": dropped}),
             *h.drain_steps("dc", 14)]
    steps[-1].counters.update({"queued": 0, "tm wan 1 deq": len(kept),
                               "ecn_marked": sum(marked), "tm wan 1 ce_written": sum(marked),
                               "tm wan 1 mark_decisions": sum(marked),
                               "tm wan 1 cnp_no_qpn": sum(marked) + dropped,
                               "mech cnp_no_qpn": sum(marked) + dropped})
    add(Case("tm.buffer_limit.roce_signals",
             "%d RoCE data frames of %d bytes into class 1 at a frozen clock: %d are dropped "
             "by the class limit, each a signal answered by mechanism A (no QPN) with no CE "
             "counted; the %d marked among the %d kept leave CE (ecn_marked = ce_written)" %
             (n, h.frame_bytes(burst[0]), dropped, sum(marked), len(kept)),
             steps=steps, plan=h.queue_plan(steps, "wan", [(0, h.fwd_fn(x, m_))
                                                          for x, m_ in zip(kept, marked)])))

    # The shaper's rate: link_rate over frames plus 24 bytes of preamble,

    # FCS and inter-frame gap. 370 small UDP frames queue at a frozen clock;
    # then the clock moves in 20 steps of 100 us (less than the shaper's
    # burst can hold at 100 Mb/s, so no refill is capped) and the frames
    # released meanwhile must match 2 ms at the link rate within a frame.
    rate_bps = 100 * 1000 * 1000
    assert cfg.ports["wan"].link_rate == "100M"
    frs = [b.dc_frame(b.udp(snd, rcv, sport=20000 + i)) for i in range(370)]
    fsize = h.frame_bytes(frs[0])
    nsteps, dt = 20, 100 * US
    steps = [Step("dc", frs, T0, counters={"tm wan 2 drops": 0})] + \
        [Step("dc", [], T0 + (i + 1) * dt) for i in range(nsteps)] + \
        h.drain_steps("dc", 14, start=T0 + 100 * MS)
    steps[-1].counters.update({"queued": 0, "tm wan 2 deq": len(frs)})
    expect = rate_bps // 8 * nsteps * dt / 1e9 / (fsize + 24)

    def rate_plan(got, res, steps=steps):
        outs, problems = h.queue_plan(steps, "wan", [(0, h.fwd_fn(x)) for x in frs])(got, res)
        sent = sum(len(g["wan"]) for g in got[1:1 + nsteps])
        if abs(sent - expect) > 1.5:
            problems.append("%d frames of %d bytes left in %d us, expected %.1f (%d b/s over "
                            "frame + 24 bytes; %.1f without the 24)" %
                            (sent, fsize, nsteps * dt // US, expect, rate_bps,
                             rate_bps // 8 * nsteps * dt / 1e9 / fsize))
        return outs, problems

    add(Case("tm.shaper.rate",
             "%d frames of %d bytes backlogged: over %d steps of %d us the shaper releases "
             "%.1f frames (%d b/s of frame + 24 bytes)" % (len(frs), fsize, nsteps, dt // US,
                                                          expect, rate_bps),
             steps=steps, plan=rate_plan))

    # ======================================================================
    # Strict priority.
    n = 6
    burst = [h.data(snd, rcv, 600 + i) for i in range(n)]
    late_ack = b.dc_frame(h.ack(snd, rcv, 77))  # a local receiver's ACK to site-b
    frames = [(0, h.fwd_fn(late_ack))] + \
        [(0, h.fwd_fn(x, m)) for x, m in zip(burst, h.red_marked(burst))]
    steps = [Step("dc", burst + [late_ack], T0), *h.drain_steps("dc", 3)]
    steps[-1].counters.update({"queued": 0, "tm wan 0 deq": 1, "tm wan 1 deq": n})
    add(Case("tm.prio.same_burst",
             "%d RoCE data packets then an ACK in one burst: the ACK (class 0) leaves first"
             % n, steps=steps, plan=h.queue_plan(steps, "wan", frames)))

    n = 10
    burst = [h.data(snd, rcv, 700 + i) for i in range(n)]
    data_fns = [h.fwd_fn(x, m) for x, m in zip(burst, h.red_marked(burst))]
    udps = [b.dc_frame(b.udp(snd, rcv, sport=7000 + i, tos=w.ECT0)) for i in range(2)]
    late = [b.dc_frame(h.ack(snd, rcv, 88)),
            b.dc_frame(w.cnp(snd, rcv, dqpn=0x00DDDD))]  # a local receiver's CNP
    steps = [Step("dc", udps + burst, T0, counters={"queued": at_least(1)}),
             Step("dc", late, T0, out={}, counters={"tm wan 0 enq": 2, "tm wan 0 deq": 0}),
             *h.drain_steps("dc", 6)]
    steps[-1].counters.update({"queued": 0, "tm wan 0 deq": 2, "tm wan 1 deq": n,
                               "tm wan 2 deq": 2, "mech trp_cnps": 1, "mech trp_no_flow": 1})

    def prio_plan(got, res, steps=steps):
        k = len(got[0]["wan"])
        problems = []
        if not 1 <= k < n:
            problems.append("the first step released %d frame(s); the case needs a data "
                            "backlog (1 .. %d)" % (k, n - 1))
        # Wire order: class 1 before class 2 in step 0; then, once the clock
        # moves, the late ACK and CNP before the data backlog and the UDP.
        frames = [(0, f) for f in data_fns[:k]] + [(1, h.fwd_fn(x)) for x in late] + \
            [(0, f) for f in data_fns[k:]] + [(0, h.fwd_fn(x)) for x in udps]
        outs, p2 = h.queue_plan(steps, "wan", frames)(got, res)
        return outs, problems + p2

    add(Case("tm.prio.backlog",
             "2 UDP (class 2) and %d RoCE data (class 1) at a frozen clock: the data leaves "
             "first and part of it waits; an ACK and a receiver CNP (class 0) enqueued later "
             "(clock still frozen: nothing leaves) go first as soon as the clock moves, "
             "before the data backlog; the UDP last" % n,
             steps=steps, plan=prio_plan))

    # ======================================================================
    # Mechanism C: the destination-side temporary reaction point.
    lrcv, rsnd = "10.1.0.1", "10.2.0.5"  # local receiver, remote sender
    first = w.roce(rsnd, lrcv, 0x06, dqpn=C_RQPN, psn=300, tos=b.roce_tos, sport=DATA_SPORT,
                   hdrs=w.reth(), payload=PAYLOAD)
    c_ack = w.roce(lrcv, rsnd, 0x11, dqpn=C_SQPN, psn=300, tos=b.roce_tos, sport=ACK_SPORT,
                   hdrs=w.aeth(0x1F, 1))
    c_cnp = w.cnp(lrcv, rsnd, dqpn=C_SQPN, sport=ACK_SPORT)
    n = 24
    incoming = [w.roce(rsnd, lrcv, 0x07, dqpn=C_RQPN, psn=301 + i, tos=b.roce_tos,
                       sport=DATA_SPORT, payload=PAYLOAD) for i in range(n)]
    # Another QP between the same hosts is not shaped.
    others = [w.roce(rsnd, lrcv, 0x07, dqpn=C_RQPN + 1, psn=900 + i, tos=b.roce_tos,
                     sport=DATA_SPORT + 1, payload=PAYLOAD) for i in range(4)]
    held = lambda res: [] if res.get("mech trp_delayed") == res.get("mech trp_released") else \
        ["trp_released %s != trp_delayed %s: held packets lost or duplicated" %
         (res.get("mech trp_released"), res.get("mech trp_delayed"))]
    steps = [
        Step("wan", [b.gen(site_b, first, seq=0)], T0, counters={"learn data_unknown dst": 1}),
        Step("dc", [b.dc_frame(c_ack)], T0, out={"wan": [h.fwd(b.dc_frame(c_ack), 0, T0)]},
             counters={"learn ack_learned dst": 1, "mech trp_cnps": 0}),
        Step("dc", [b.dc_frame(c_cnp)], T0, out={"wan": [h.fwd(b.dc_frame(c_cnp), 1, T0)]},
             counters={"mech trp_cnps": 1, "mech trp_activations": 1, "mech trp_no_flow": 0,
                       "mech trp_delayed": 0}),
        Step("wan", [b.gen(site_b, x, seq=1 + i) for i, x in enumerate(incoming + others)], T0,
             counters={"mech trp_delayed": at_least(1), "queued": at_least(1)}),
        Step("wan", [], T0 + 20 * US, counters={"mech trp_released": at_least(1)}),
        Step("wan", [], T0 + 100 * MS, counters={"queued": 0, "mech trp_activations": 1},
             check=held),
    ]
    def trp_plan(got, res, steps=steps):
        # Step 3 forwards the shaped QP's first k packets (its bucket) and
        # all of the other QP's at once; the shaped QP's rest follows later.
        k = len(got[3]["dc"]) - len(others)
        problems = [] if 1 <= k < n else \
            ["step 3 forwarded %d frame(s): expected part of the shaped QP's %d and the "
             "other QP's %d" % (len(got[3]["dc"]), n, len(others))]
        order = [(0, first)] + [(3, x) for x in incoming[:max(k, 0)] + others] + \
            [(3, x) for x in incoming[max(k, 0):]]
        frames = [(s_, (lambda x: lambda seq, ts: b.dec(x))(x)) for s_, x in order]
        outs, p2 = h.queue_plan(steps, "dc", frames)(got, res)
        return outs, problems + p2

    add(Case("mechc.trp",
             "data from site-b to local receiver QPN %#x; the receiver's ACK (DestQP %#x) "
             "teaches the destination-side learner; its CNP still goes to the WAN and "
             "activates the reaction point; of %d further data packets at a frozen clock some "
             "wait (trp_delayed) and leave in order as the clock moves; nothing is lost; "
             "another QP of the same hosts passes unshaped" % (C_RQPN, C_SQPN, n),
             steps=steps, plan=trp_plan))
    other_cnp = w.cnp(lrcv, rsnd, dqpn=0x00EEEE, sport=ACK_SPORT)
    add(Case("mechc.cnp_unknown_qp",
             "a local receiver's CNP for a QP the destination-side learner does not know: "
             "forwarded, counted trp_no_flow, nothing shaped",
             steps=[Step("wan", [b.gen(site_b, first, seq=0)], T0, out={"dc": [b.dec(first)]}),
                    Step("dc", [b.dc_frame(c_ack)], T0,
                         out={"wan": [h.fwd(b.dc_frame(c_ack), 0, T0)]}),
                    Step("dc", [b.dc_frame(other_cnp)], T0,
                         out={"wan": [h.fwd(b.dc_frame(other_cnp), 1, T0)]},
                         counters={"mech trp_cnps": 1, "mech trp_no_flow": 1,
                                   "mech trp_activations": 0}),
                    Step("wan", [b.gen(site_b, x, seq=1 + i) for i, x in
                                 enumerate(incoming[:4])], T0,
                         out={"dc": [b.dec(x) for x in incoming[:4]]},
                         counters={"mech trp_delayed": 0, "queued": 0})]))
    return cases


def build_absorb_cases(cfg, b, api):
    """
    Cases for fixture-tm.conf with --set congestion.cnp_forward=no. A
    local receiver's CNP that starts the reaction point goes no further
    (dropped, cnp_absorbed); one the gateway cannot act on still reaches the
    sender: a QP it does not know, and a QP whose data arrived from the WAN
    already CE-marked (congestion before the WAN, which only the sender can
    relieve).
    """
    Case, Step = api.Case, api.Step
    assert cfg.cong.get("cnp_forward") == "no" and "C" in cfg.cong.get("mechanisms", "")
    h = Helpers(cfg, b, api)
    site_b = b.site_b
    lrcv, rsnd = "10.1.0.1", "10.2.0.5"
    first = w.roce(rsnd, lrcv, 0x06, dqpn=C_RQPN, psn=300, tos=b.roce_tos, sport=DATA_SPORT,
                   hdrs=w.reth(), payload=PAYLOAD)
    c_ack = w.roce(lrcv, rsnd, 0x11, dqpn=C_SQPN, psn=300, tos=b.roce_tos, sport=ACK_SPORT,
                   hdrs=w.aeth(0x1F, 1))
    c_cnp = w.cnp(lrcv, rsnd, dqpn=C_SQPN, sport=ACK_SPORT)
    other_cnp = w.cnp(lrcv, rsnd, dqpn=0x00EEEE, sport=ACK_SPORT)
    ce_first = w.roce(rsnd, lrcv, 0x06, dqpn=C_RQPN, psn=300, tos=(26 << 2) | w.CE,
                      sport=DATA_SPORT, hdrs=w.reth(), payload=PAYLOAD)
    learn = [Step("wan", [b.gen(site_b, first, seq=0)], T0, out={"dc": [b.dec(first)]}),
             Step("dc", [b.dc_frame(c_ack)], T0, out={"wan": [h.fwd(b.dc_frame(c_ack), 0, T0)]},
                  counters={"learn ack_learned dst": 1})]
    return [
        Case("absorb.cnp",
             "data from site-b to local receiver QPN %#x, the receiver's ACK teaches the "
             "learner; its CNP starts the reaction point and is dropped (cnp_absorbed), "
             "not sent to the WAN; a CNP for a QP the learner does not know still goes on "
             "(trp_no_flow)" % C_RQPN,
             steps=learn + [
                 Step("dc", [b.dc_frame(c_cnp)], T0, drops={"cnp_absorbed": 1},
                      counters={"mech trp_cnps": 1, "mech trp_activations": 1,
                                "mech trp_no_flow": 0}),
                 Step("dc", [b.dc_frame(other_cnp)], T0, drops={"cnp_absorbed": 1},
                      out={"wan": [h.fwd(b.dc_frame(other_cnp), 1, T0)]},
                      counters={"mech trp_cnps": 2, "mech trp_no_flow": 1,
                                "mech trp_activations": 1}),
                 Step("wan", [], T0 + 100 * MS, counters={"queued": 0})]),
        Case("absorb.upstream_ce",
             "the same QP's data arrives from the WAN with CE already set: the receiver's "
             "CNP does not start the reaction point (trp_upstream_ce) and goes on to the "
             "sender, the one reaction point that can help",
             steps=[Step("wan", [b.gen(site_b, ce_first, seq=0)], T0,
                         out={"dc": [b.dec(ce_first)]}),
                    learn[1],
                    Step("dc", [b.dc_frame(c_cnp)], T0,
                         out={"wan": [h.fwd(b.dc_frame(c_cnp), 1, T0)]},
                         counters={"mech trp_cnps": 1, "mech trp_upstream_ce": 1,
                                   "mech trp_activations": 0})]),
    ]


def build_sojourn_cases(cfg, b, api):
    """Cases for fixture-sojourn.conf: sojourn marking at dequeue, mechanism A defaults."""
    cases = []
    Case, Step, at_least = api.Case, api.Step, api.at_least
    target = cfg.cong_time_ns("target_delay", "0")
    assert target > 0
    interval = cnp_interval_ns(cfg)
    cnp_dscp = int(cfg.cong.get("cnp_dscp", "48"))
    h = Helpers(cfg, b, api)
    snd, rcv = "10.1.0.1", "10.2.0.5"
    # Well below and well above the target: the TSC conversion may round a
    # sojourn by a nanosecond, so the exact boundary is not a fixture.
    below, above = target // 2, 100 * target

    def marked_at(ts, t_enq=T0):
        return ts - t_enq > target

    n = 12
    ecns = [w.ECT0] * (n - 3) + [w.NOT_ECT, w.ECT1, w.CE]
    for label, stream in (("ect0", [w.ECT0] * n), ("mixed", ecns)):
        burst = [h.with_ecn(h.data(snd, rcv, 100 + i), e) for i, e in enumerate(stream)]
        steps = [Step("dc", burst, T0, counters={"queued": at_least(1)}),
                 Step("dc", [], T0 + below),
                 Step("dc", [], T0 + above), *h.drain_steps("dc", 4, start=T0 + above)]
        steps[-1].counters.update({"queued": 0})
        frames = [(0, (lambda x, e: lambda seq, ts: h.fwd(
            x, seq, ts, ecn=w.CE if marked_at(ts) and e in (w.ECT0, w.ECT1) else None))(x, e))
            for x, e in zip(burst, stream)]

        def plan(got, res, steps=steps, frames=frames, stream=stream):
            outs, problems = h.queue_plan(steps, "wan", frames)(got, res)
            if not got[1]["wan"]:
                problems.append("no frame left %d ns after enqueue (below the target): the "
                                "case cannot show an unmarked non-zero sojourn" % below)
            # Frames that left after the target, and the ECT ones among them.
            left = [len(g["wan"]) for g in got]
            late = [i for i in range(sum(left[:2]), min(sum(left), len(stream)))]
            ect_late = sum(1 for i in late if stream[i] in (w.ECT0, w.ECT1))
            if not late:
                problems.append("no frame left after the target")
            marks = res[-1].get("tm wan 1 ce_written")
            if res[-1].get("tm wan 1 mark_decisions") != len(late):
                problems.append("tm wan 1 mark_decisions = %s, expected %d: every frame "
                                "that left after the %d ns target" %
                                (res[-1].get("tm wan 1 mark_decisions"), len(late), target))
            if marks != ect_late:
                problems.append("tm wan 1 ce_written = %s, expected %d: the ECT frames that left "
                                "after the %d ns target (Not-ECT and already-CE frames are not "
                                "marked by the gateway)" % (marks, ect_late, target))
            return outs, problems

        add_to(cases, Case("sojourn.%s" % label,
                           "%d RoCE data packets (%s) at a frozen clock: frames that leave "
                           "%d ns later are not marked, frames that leave after the %d ns "
                           "target are CE if they are ECT" %
                           (n, "ECT(0)" if label == "ect0" else
                            "/".join(w.ECN_NAMES[e] for e in stream), below, target),
                           steps=steps, plan=plan))

    # Sojourn mark on a learned flow: a CNP at dequeue, the packet leaves ECT(0).
    d0 = h.data(snd, rcv, 100, first=True)
    ack = h.ack(rcv, snd, 100)
    burst = [h.data(snd, rcv, 101 + i) for i in range(n)]
    cnp = w.gateway_cnp(cfg, snd, rcv, SQPN, DATA_SPORT, cnp_dscp)
    t1 = T0 + US
    steps = [Step("dc", [d0], T0, out={"wan": [h.fwd(d0, 0, T0)]}),
             Step("wan", [b.gen(b.site_b, ack, seq=0)], T0, out={"dc": [b.dec(ack)]},
                  counters={"learn ack_learned src": 1}),
             Step("dc", burst, t1, counters={"queued": at_least(1)}),
             *h.drain_steps("dc", 5, start=t1 + above)]
    steps[-1].counters.update({"queued": 0, "mech ce_cleared": 0, "mech cnp_no_qpn": 0,
                               "ecn_marked": 0, "tm wan 1 ce_written": 0})
    frames = [(0, h.fwd_fn(d0))] + [(2, h.fwd_fn(x)) for x in burst]

    def cnp_plan(got, res, steps=steps, frames=frames):
        outs, problems = h.queue_plan(steps, "wan", frames)(got, res)
        # A step whose frames waited beyond the target signals; the first
        # signalled frame of a step gets a CNP (steps are > cnp_interval apart).
        sent = 0
        signalled = 0
        for i, st in enumerate(steps):
            if i < 3:
                continue
            k = len(got[i]["wan"])
            if k and st.clock - t1 > target:
                outs[i]["dc"] = [cnp]
                sent += 1
                signalled += k
        assert all(b_.clock - a.clock > interval for a, b_ in zip(steps[3:], steps[4:]))
        if not sent:
            problems.append("no frame left after the target")
        got_sent = res[-1].get("mech cnp_sent")
        got_supp = res[-1].get("mech cnp_suppressed")
        if (got_sent, got_supp) != (sent, signalled - sent):
            problems.append("cnp_sent %s cnp_suppressed %s, expected %d and %d" %
                            (got_sent, got_supp, sent, signalled - sent))
        # The RoCE class: every dequeue-time decision answered, none written.
        cls = {k: res[-1].get("tm wan 1 " + k) for k in
               ("mark_decisions", "cnp_sent", "cnp_suppressed", "cnp_no_qpn", "cnp_failed")}
        if cls != {"mark_decisions": signalled, "cnp_sent": sent,
                   "cnp_suppressed": signalled - sent, "cnp_no_qpn": 0, "cnp_failed": 0}:
            problems.append("RoCE class %s: expected %d decisions = %d CNPs sent + %d "
                            "suppressed" % (cls, signalled, sent, signalled - sent))

        return outs, problems

    add_to(cases, Case("sojourn.mecha_cnp",
                       "learned flow: frames that waited beyond the target are signalled at "
                       "dequeue: one CNP (DSCP %d, the default) per step and QP, the frames "
                       "leave ECT(0), no CE is written" % cnp_dscp, steps=steps, plan=cnp_plan))
    return cases


def add_to(cases, case):
    assert case.name not in {c.name for c in cases}, case.name
    cases.append(case)


class Helpers:
    """Packets and plans shared by the groups, bound to a config."""

    def __init__(self, cfg, b, api):
        self.cfg = cfg
        self.b = b
        self.api = api

    def data(self, src, dst, psn, first=False, payload_len=len(PAYLOAD), dqpn=RQPN,
             sport=DATA_SPORT):
        """A RoCE RDMA WRITE (FIRST with a RETH, else MIDDLE) DC frame, ECT(0)."""
        pl = (PAYLOAD * 8)[:payload_len]
        assert payload_len % 4 == 0, "RoCE payloads here are whole words (PadCnt 0)"
        if first:
            ip = w.roce(src, dst, 0x06, dqpn=dqpn, psn=psn, tos=self.b.roce_tos,
                        sport=sport, hdrs=w.reth(), payload=pl)
        else:
            ip = w.roce(src, dst, 0x07, dqpn=dqpn, psn=psn, tos=self.b.roce_tos,
                        sport=sport, payload=pl)
        return self.b.dc_frame(ip)

    def ack(self, src, dst, psn, syndrome=0x1F, sport=ACK_SPORT, dqpn=SQPN):
        """An RC ACK (or NAK) IP packet, DestQP = the data sender's QPN."""
        return w.roce(src, dst, 0x11, dqpn=dqpn, psn=psn, tos=self.b.roce_tos, sport=sport,
                      hdrs=w.aeth(syndrome, 7))

    def udp_sized(self, src, dst, wire, tos=w.ECT1):
        """A UDP DC frame whose encapsulated WAN frame is `wire` bytes long."""
        pay = wire - 14 - 20 - 8 - 28 - 20 - 8
        return self.b.dc_frame(self.b.udp(src, dst, sport=9000 + wire, payload=b"u" * pay,
                                          tos=tos))

    @staticmethod
    def inner(frame):
        _, off = w.l2_split(frame)
        return w.ip_trim(frame[off:])

    def with_ecn(self, frame, ecn):
        """The DC frame with the inner ECN field replaced (IPv4 checksum recomputed)."""
        _, off = w.l2_split(frame)
        ip = self.inner(frame)
        ip = w.ip_set_tos(ip, (w.ip_tos(ip) & ~3) | ecn)
        return w.pad60(frame[:off] + ip)

    def peer_of(self, ip):
        return self.cfg.route(str(ipaddress.ip_address(w.ip_addrs(ip)[1])))

    def fwd(self, frame, seq, ts, ecn=None):
        """
        Expected WAN frame of a DC frame leaving at ts with GENEVE sequence
        seq; ecn, when given, is the inner ECN it leaves with (the outer
        header copies it).
        """
        ip = self.inner(frame)
        if ecn is not None:
            ip = w.ip_set_tos(ip, (w.ip_tos(ip) & ~3) | ecn)
        out = w.encap(self.cfg, self.peer_of(ip), w.ip_dec_ttl(ip), seq, ts)
        if ip[0] >> 4 == 4:
            _, off = w.l2_split(out)
            oh = (out[off] & 0x0F) * 4
            inner = out[off + oh + 8 + 28:]
            assert w.ip4_csum_ok(inner) and w.ip4_csum_ok(out[off:])
        return out

    def frame_bytes(self, frame):
        """The WAN frame length of a DC frame once encapsulated (no FCS)."""
        return len(self.fwd(frame, 0, T0))

    def queue_ahead(self, frames):
        """Bytes of the same class queued ahead of each frame of a burst into an empty queue."""
        ahead, q = [], 0
        for f in frames:
            ahead.append(q)
            q += self.frame_bytes(f)
        return ahead

    def drain_steps(self, ingress, count, start=None, gap=100 * MS):
        """Empty steps that move the clock (by gap) so a shaped queue drains."""
        start = T0 + gap if start is None else start
        return [self.api.Step(ingress, [], start + i * gap) for i in range(count)]

    def red_marked(self, frames):
        """Which frames of a burst into an empty class queue RED marks (pmax 1, ramp 1 B)."""
        kmin = self.cfg.cong_size("kmin")
        return [q > kmin for q in self.queue_ahead(frames)]

    def fwd_fn(self, frame, marked=False):
        """fn(seq, ts) for queue_plan: the frame leaving, CE if marked and ECT."""
        ecn = w.ip_tos(self.inner(frame)) & 3
        to = w.CE if marked and ecn in (w.ECT0, w.ECT1) else None
        return lambda seq, ts: self.fwd(frame, seq, ts, ecn=to)

    def queue_plan(self, steps, port, frames):
        """
        Expected frames of port per step when frames (first step, fn(seq,
        ts) -> frame) leave in this order, as many per step as observed;
        sequence numbers count from 0 in wire order (one peer).
        """
        def plan(got, res):
            outs = [dict(st.out) for st in steps]
            problems = []
            k = 0
            for i, st in enumerate(steps):
                exp = []
                for _ in range(len(got[i].get(port, []))):
                    if k >= len(frames):
                        break
                    first, fn = frames[k]
                    if first > i:
                        problems.append("frame %d left in step %d, before its input "
                                        "(step %d)" % (k, i, first))
                    exp.append(fn(k, st.clock if st.clock is not None else T0))
                    k += 1
                outs[i][port] = exp
            if k < len(frames):
                problems.append("%d of %d frame(s) never left port %s" %
                                (len(frames) - k, len(frames), port))
            return outs, problems
        return plan
