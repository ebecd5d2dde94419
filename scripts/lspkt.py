# SPDX-License-Identifier: BSD-3-Clause
"""RoCEv2 packet helpers shared by the lab scripts and tests.

scapy 2.5's BTH computes the ICRC only over IPv4; roce_icrc() here follows
the RoCEv2 annex (A17.4.4.1) for both IPv4 and IPv6: CRC-32 over 8 bytes of
ones (the masked LRH), the IP header with its variant fields set to ones
(IPv4: TOS, TTL, checksum; IPv6: traffic class, flow label, hop limit), the
UDP header with its checksum set to ones, the BTH with its reserved byte
(FECN/BECN/resv6) set to ones, and the rest up to the ICRC, which is stored
little-endian after the payload.
"""

import struct
import zlib


def roce_icrc(ip_packet: bytes) -> bytes:
    """ICRC of an IP packet (IPv4 or IPv6) carrying UDP/BTH, ICRC excluded.

    ip_packet: the IP packet bytes up to but not including the 4 ICRC bytes.
    """
    b = bytearray(ip_packet)
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0xF) * 4
        b[1] = 0xFF  # TOS
        b[8] = 0xFF  # TTL
        b[10:12] = b"\xff\xff"  # header checksum
        l4 = ihl
    elif b[0] >> 4 == 6:
        b[0] |= 0x0F  # traffic class high nibble
        b[1:4] = b"\xff\xff\xff"  # traffic class low nibble + flow label
        b[7] = 0xFF  # hop limit
        l4 = 40
    else:
        raise ValueError("not an IP packet")
    b[l4 + 6:l4 + 8] = b"\xff\xff"  # UDP checksum
    b[l4 + 8 + 4] = 0xFF  # BTH FECN/BECN/resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF
    return struct.pack("<I", crc)


def with_icrc(ip_packet_with_placeholder: bytes) -> bytes:
    """Replace the last 4 bytes (ICRC placeholder) with the computed ICRC."""
    body = ip_packet_with_placeholder[:-4]
    return body + roce_icrc(body)
