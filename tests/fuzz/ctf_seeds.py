#!/usr/bin/env python3
"""Seeds for fuzz_ctfread (tests/fuzz/fuzz_ctfread.c): TSDL text, a 0 byte,
then the bytes of one stream file. Called by tests/fuzz/make-corpus.sh:

    ctf_seeds.py OUT [METADATA...]

For each METADATA file (an LTTng trace folder's, packetized or plain) the
packets' contents are joined into the TSDL text and paired with each
stream file of its folder: the first 64 KiB (a first packet larger than
that gets packet_size 64 KiB and content_size cut to it: LTTng's packet
layout, content_size and packet_size at bytes 48 and 56; its last event is
then cut), and the first whole packet of at most 64 KiB holding events.
Then four hand-made traces (no file needed): LTTng's kernel-style compact
event header (5-bit id, 27-bit timestamp, extended header for ids over 30),
a big-endian trace with unaligned integers and a double, a variant chosen
by an enum field, a sequence with a signed length (the last one -1), an
array of structs and a 2-D array.
"""
import glob
import os
import struct
import sys

K = 65536
META_MAGIC = b"\x57\x1d\xd1\x75"  # 0x75D11D57 little-endian
PACKET_MAGIC = 0xC1FC1FC1


def tsdl_text(path):
    data = open(path, "rb").read()
    if data[:4] not in (META_MAGIC, META_MAGIC[::-1]):
        return data
    bo = "<" if data[:4] == META_MAGIC else ">"
    text, off = b"", 0
    while off + 37 <= len(data):
        content, packet = struct.unpack_from(bo + "II", data, off + 24)
        if packet < 37 * 8 or content > packet or content < 37 * 8:
            break
        text += data[off + 37:off + content // 8]
        off += packet // 8
    return text


def lttng_packets(stream):
    """(offset, content bytes, packet bytes) of each packet, LTTng's layout."""
    off = 0
    while off + 64 <= len(stream):
        magic, = struct.unpack_from("<I", stream, off)
        content, packet = struct.unpack_from("<QQ", stream, off + 48)
        if magic != PACKET_MAGIC or packet == 0 or packet % 8 or content > packet:
            return
        yield off, content // 8, packet // 8
        off += packet // 8


def trace_seeds(out, meta):
    text = tsdl_text(meta)
    folder = os.path.dirname(meta)
    parts = folder.split("/")
    # clr-only.trace/.../kernel -> clr-only-kernel; tests/data/ctf/ust-gc/ust/uid/1000/64-bit
    # -> ust-gc-ust; tests/data/ctf/mixed -> mixed
    trace = next((p[:-6] for p in parts if p.endswith(".trace")), None)
    if trace is None:
        trace = parts[parts.index("ctf") + 1] if "ctf" in parts[:-1] else parts[-1]
    if "kernel" in parts[1:] and not trace.endswith("kernel"):
        trace += "-kernel"
    elif "ust" in parts:
        trace += "-ust"
    streams = [f for f in sorted(os.listdir(folder))
               if f != "metadata" and not f.startswith(".")
               and os.path.isfile(os.path.join(folder, f))]
    for ch in (os.path.join(folder, f) for f in streams):
        stream = open(ch, "rb").read()
        name = "%s-%s" % (trace, os.path.basename(ch))
        first = bytearray(stream[:K])
        packets = list(lttng_packets(stream))
        if packets and packets[0][2] > K:
            struct.pack_into("<QQ", first, 48, min(packets[0][1], K) * 8, K * 8)
        write(out, name + "-64k", text, first)
        for off, content, packet in packets:
            if packet <= K and content > 84:  # more than header + context
                write(out, name + "-packet@%d" % off, text, stream[off:off + packet])
                break


def write(out, name, text, stream):
    with open(os.path.join(out, name), "wb") as f:
        f.write(text + b"\0" + bytes(stream))


class Bits:
    """A packet's bits: little-endian fields fill each byte from its least
    significant bit, big-endian ones from its most (CTF 1.8 section 4.1.5)."""

    def __init__(self):
        self.bits = []  # one 0/1 per bit, in stream order

    def align(self, n):
        while len(self.bits) % n:
            self.bits.append(0)

    def int(self, value, size, align=8, big=False):
        self.align(align)
        value &= (1 << size) - 1
        if big:
            self.bits += [(value >> (size - 1 - i)) & 1 for i in range(size)]
        else:
            self.bits += [(value >> i) & 1 for i in range(size)]

    def raw(self, data):
        self.align(8)
        for b in data:
            self.int(b, 8)

    def tobytes(self, big=False):
        self.align(8)
        out = bytearray()
        for i in range(0, len(self.bits), 8):
            chunk = self.bits[i:i + 8]
            if big:
                out.append(sum(bit << (7 - k) for k, bit in enumerate(chunk)))
            else:
                out.append(sum(bit << k for k, bit in enumerate(chunk)))
        return out


COMMON = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
trace { major = 1; minor = 8; byte_order = %s;
    packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
clock { name = "monotonic"; freq = 1000000000; offset_s = 1600000000; offset = 5; };
typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
struct packet_context {
    uint64_clock_monotonic_t timestamp_begin; uint64_clock_monotonic_t timestamp_end;
    uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; uint32_t cpu_id;
};
"""


# A stream of 16-bit ids and 64-bit timestamps (LTTng's "large" header, flat).
LARGE_HEADER_STREAM = """
stream { id = 0; packet.context := struct packet_context;
    event.header := struct { uint16_t id; uint64_clock_monotonic_t timestamp; }; };
"""


def packet(events, big=False, ts=(1000, 9000), pad=64):
    """Packet header and context around the events' bits (a Bits)."""
    head = Bits()
    head.int(PACKET_MAGIC, 32, big=big)
    head.int(0, 32, big=big)
    head.int(ts[0], 64, big=big)
    head.int(ts[1], 64, big=big)
    content = len(head.bits) + 3 * 64 + 32 + len(events.bits)
    size = (content + 7) // 8 * 8 + pad * 8
    head.int(content, 64, big=big)
    head.int(size, 64, big=big)
    head.int(0, 64, big=big)
    head.int(1, 32, big=big)
    head.bits += events.bits
    out = head.tobytes(big)
    return out + bytes(size // 8 - len(out))


def compact_seed():
    text = COMMON % "le" + """
struct event_header_compact {
    enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
    variant <id> {
        struct { uint27_clock_monotonic_t timestamp; } compact;
        struct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;
    } v;
} align(8);
stream { id = 0; event.header := struct event_header_compact; packet.context := struct packet_context;
    event.context := struct {
        integer { size = 32; align = 8; signed = 1; } _vpid;
        integer { size = 32; align = 8; signed = 1; } _vtid;
        integer { size = 8; align = 8; signed = 1; encoding = UTF8; } _procname[8];
    };
};
event { name = "DotNETRuntime:GCStart_V2"; id = 0; stream_id = 0;
    fields := struct { uint32_t _Count; uint32_t _Depth; uint32_t _Reason; uint32_t _Type;
        uint16_t _ClrInstanceID; uint64_t _ClientSequenceNumber; }; };
event { name = "lttng_ust_statedump:procname"; id = 1; stream_id = 0;
    fields := struct { uint8_t _len; uint8_t _bytes[_len]; string _name; }; };
event { name = "DotNETRuntime:EventSource"; id = 40; stream_id = 0;
    fields := struct { uint32_t _length; uint32_t ____data___length;
        integer { size = 8; align = 8; signed = 1; } ___data__[ ____data___length ]; }; };
"""
    e = Bits()

    def context(pid):
        e.int(pid, 32)
        e.int(pid + 1, 32)
        e.raw(b"dotnet\0\0")

    for k in range(3):  # GCStart, compact header
        e.int(0, 5, align=8)
        e.int(2000 + 1000 * k, 27, align=1)
        context(4242)
        for v in (k, 2, 1, 0):
            e.int(v, 32)
        e.int(7, 16)
        e.int(k, 64)
    e.int(1, 5, align=8)  # statedump, compact
    e.int(6000, 27, align=1)
    context(4242)
    e.int(3, 8)
    e.raw(b"abc")
    e.raw(b"proc\0")
    e.int(31, 5, align=8)  # EventSource, extended header
    e.int(40, 32)
    e.int(1 << 27 | 5, 64)  # the 27 bits wrapped
    context(4243)
    e.int(4, 32)
    e.int(4, 32)
    e.raw(b"\1\2\3\4")
    return text, packet(e, ts=(1000, 1 << 28))


def big_endian_seed():
    text = COMMON % "be" + """
stream { id = 0; packet.context := struct packet_context; };
event { name = "be:unaligned"; id = 0;
    fields := struct {
        integer { size = 3; align = 1; signed = false; } _a;
        integer { size = 12; align = 1; signed = true; } _b;
        integer { size = 17; align = 1; signed = false; byte_order = le; } _c;
        floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _d;
        integer { size = 64; align = 1; signed = true; } _e;
    }; };
"""
    e = Bits()
    for k in range(4):
        e.int(5, 3, align=1, big=True)
        e.int(-100 - k, 12, align=1, big=True)
        # a little-endian field among big-endian ones: its own byte order
        e.int(70000 + k, 17, align=1, big=False)
        e.int(struct.unpack(">Q", struct.pack(">d", 1.5 * k))[0], 64, align=8, big=True)
        e.int(-(1 << 62) + k, 64, align=1, big=True)
    return text, packet(e, big=True)


def variant_seed():
    text = COMMON % "le" + LARGE_HEADER_STREAM + """event { name = "v:chosen"; id = 0;
    fields := struct {
        enum : uint8_t { a = 0, b = 1, c = 2 ... 5 } _tag;
        variant <_tag> { uint32_t a; string b; uint16_t c; } _v;
    }; };
"""
    e = Bits()
    for tag, body in ((0, lambda: e.int(77, 32)), (1, lambda: e.raw(b"hello\0")),
                      (4, lambda: e.int(9, 16)), (6, lambda: None)):
        e.int(0, 16)
        e.int(3000 + tag, 64)
        e.int(tag, 8)
        body()
    return text, packet(e)


def sequence_seed():
    text = COMMON % "le" + LARGE_HEADER_STREAM + """event { name = "s:signed"; id = 0;
    fields := struct {
        integer { size = 16; align = 8; signed = true; } _n;
        uint16_t _items[_n];
        struct { uint8_t _k; string _s; } _pairs[2];
        uint8_t _grid[2][3];
    }; };
"""
    e = Bits()
    for k, n in enumerate((2, 0, -1)):
        e.int(0, 16)
        e.int(4000 + k, 64)
        e.int(n, 16)
        for i in range(max(n, 0)):
            e.int(i, 16)
        e.raw(b"\1a\0\2\0")
        e.raw(b"\1\2\3\4\5\6")
    return text, packet(e)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for meta in sys.argv[2:]:
        trace_seeds(out, meta)
    for name, make in (("compact", compact_seed), ("big-endian", big_endian_seed),
                       ("variant", variant_seed), ("sequence", sequence_seed)):
        text, stream = make()
        write(out, "hand-" + name, text.encode(), stream)


if __name__ == "__main__":
    main()
