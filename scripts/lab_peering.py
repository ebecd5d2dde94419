# SPDX-License-Identifier: BSD-3-Clause
"""Authenticated peering for the lab's two gateways (docs/peering.md).

The lab CA and the site certificates come from scripts/make-certs.sh (the
CA is kept across runs in OUT/pki); the sessions run over loopback,
site-a on 127.0.0.1 and site-b on 127.0.0.2, because the WAN addresses
belong to DPDK.
"""

import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ADDR = {"a": "127.0.0.1", "b": "127.0.0.2"}
PORT = 7481


def make_certs(out):
    """OUT/pki with ca.crt and site-{a,b}.{crt,key}; returns its path."""
    pki = os.path.join(out, "pki")
    subprocess.run(["bash", os.path.join(HERE, "make-certs.sh"), "-o", pki, "site-a", "site-b"],
                   check=True, stdout=subprocess.DEVNULL)
    return pki


def configure(text, s, o, pki, ini_set):
    """TEXT (site S's config, peer site-O) with a [peering] section added."""
    text = ini_set(text, f"peer site-{o}", "peering_address", ADDR[o])
    for key, value in (("listen", ADDR[s]), ("port", str(PORT)), ("ca", f"{pki}/ca.crt"),
                       ("cert", f"{pki}/site-{s}.crt"), ("key", f"{pki}/site-{s}.key")):
        text = ini_set(text, "peering", key, value)
    return text
