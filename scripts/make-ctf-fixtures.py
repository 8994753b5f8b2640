#!/usr/bin/env python3
"""Writes the synthetic CTF 1.8 traces of tests/data/ctf/ (docs/fixtures.md).

    scripts/make-ctf-fixtures.py [OUT]      (default: tests/data/ctf)

Deterministic: the same bytes every run (fixed UUIDs, timestamps and
values), so tests/cli/ctf_native.sh re-creates them in a temporary folder
and requires them identical to the committed ones.

The traces are shaped as lttng-modules and lttng-ust write them, in the
ways our two shared perfcollect traces do not: they are the inputs of the
differential test of our own CTF reader against babeltrace2
(tests/cli/ctf_native.sh), each read by both and required to give the same
events, the same payload bytes, the same `info` and `stats`.

  kernel-le/    lttng-modules style, little-endian, packetized metadata
                (512-byte packets: the text is cut mid-token): the compact
                event header (5-bit id, 27-bit timestamp, or id 31 and the
                32-bit id with the 64-bit timestamp), 27-bit timestamps
                wrapping between events, three CPU files whose events
                interleave (two with the same timestamp; stream_instance_id
                in the opposite order of the file names), char arrays with
                encoding = UTF8 (sched_switch's prev_comm[16]), sequences
                whose length is an earlier field, enums (signed 64-bit),
                unaligned fields of 1 to 64 bits, signed ones, a packet
                whose content ends inside a byte, padding after content,
                events_discarded > 0.
  kernel-be/    the same events, big-endian (byte_order = be), packetized
                metadata in big-endian packets.
  ust-gc/       a perfcollect session: kernel/ and ust/uid/1000/64-bit/
                (plain-text metadata, lttng-ust's large event header with
                16-bit ids and 32-bit timestamps that wrap, vpid/vtid/
                procname context) holding DotNETRuntime:GC* events of two
                processes in the real metadata's layouts (GCStart_V2,
                GCEnd_V1, GCHeapStats_V2 as a __data__ blob,
                GCAllocationTick_V3, SuspendEE/RestartEE), so `gcscope
                stats` computes 3 GCs; the kernel and user-space clocks have
                different offsets.
  ust-be/       ust-gc's user-space trace written big-endian (lttng-ust on a
                big-endian host): the same events and payloads.
  single/       no stream_id, no event id, a 16-bit clock at 1 kHz,
                timestamp_end without timestamp_begin.
  ties/         two traces, 5 CPU files, events often at the same
                nanosecond: ties in babeltrace2's muxer order.
  clock3g/      a 3 GHz clock: two events a third of a nanosecond apart
                in two files (babeltrace2 orders them otherwise).
  mixed/        two stream classes in one trace; stream 0's packet context
                has no packet_size/content_size (a packet is the whole file)
                and events_discarded > 0; payload fields that cannot be
                rebuilt in the manifest layout (a variant), floats of 32 and
                64 bits, nested structs and arrays of structs, a payload
                integer mapped to the clock, byte orders said per field.
"""
import os
import struct
import sys

# ---- bits ----


class Bits:
    """A packet's bytes written field by field at bit positions (CTF 1.8
    section 4.1.5: little-endian fields fill each byte from its least
    significant bit, big-endian ones from its most significant)."""

    def __init__(self, be):
        self.be = be
        self.buf = bytearray()
        self.pos = 0

    def align(self, n):
        self.pos = (self.pos + n - 1) // n * n
        need = (self.pos + 7) // 8
        if len(self.buf) < need:
            self.buf.extend(bytes(need - len(self.buf)))

    def int(self, v, size, align=8, at=None, be=None):
        big = self.be if be is None else be
        if at is None:
            self.align(align)
            p0 = self.pos
        else:
            p0 = at
        v &= (1 << size) - 1
        for i in range(size):
            bit = (v >> (size - 1 - i)) & 1 if big else (v >> i) & 1
            p = p0 + i
            while (p >> 3) >= len(self.buf):
                self.buf.append(0)
            if bit:
                self.buf[p >> 3] |= (1 << (7 - (p & 7))) if big else (1 << (p & 7))
        if at is None:
            self.pos += size

    def raw(self, data):
        self.align(8)
        for b in data:
            self.int(b, 8)


# ---- types: each gives its TSDL and writes a value ----


class Int:
    def __init__(self, size, align=None, signed=False, text=False, clock=None, enum=None,
                 base=10, bo=None):
        self.size, self.signed, self.text, self.clock, self.enum = size, signed, text, clock, enum
        self.al = align if align is not None else (8 if size % 8 == 0 else 1)
        self.base, self.bo = base, bo  # bo: "be", "le", "native" or None (not said)

    def int_tsdl(self):
        s = "integer { size = %d; align = %d; signed = %d; encoding = %s; base = %d;" % (
            self.size, self.al, 1 if self.signed else 0, "UTF8" if self.text else "none", self.base)
        if self.clock:
            s += " map = clock.%s.value;" % self.clock
        if self.bo:
            s += " byte_order = %s;" % self.bo
        return s + " }"

    def tsdl(self):
        if not self.enum:
            return self.int_tsdl()
        labels = []
        for name, lo, hi in self.enum:
            labels.append("%s = %d" % (name, lo) if lo == hi else "%s = %d ... %d" % (name, lo, hi))
        return "enum : %s { %s }" % (self.int_tsdl(), ", ".join(labels))

    def align(self):
        return self.al

    def write(self, w, v):
        w.int(v, self.size, self.al, be={"be": True, "le": False}.get(self.bo))


class Float:
    def __init__(self, bits, align=None):
        self.bits, self.al = bits, align or bits

    def tsdl(self):
        e, m = (8, 24) if self.bits == 32 else (11, 53)
        return "floating_point { exp_dig = %d; mant_dig = %d; align = %d; }" % (e, m, self.al)

    def align(self):
        return self.al

    def write(self, w, v):
        fmt = "<f" if self.bits == 32 else "<d"
        raw = struct.unpack("<I" if self.bits == 32 else "<Q", struct.pack(fmt, v))[0]
        w.int(raw, self.bits, self.al)


class Str:
    def tsdl(self):
        return "string"

    def align(self):
        return 8

    def write(self, w, v):
        w.raw(v.encode() + b"\0")


class Array:
    """name[length] (length a number) or name[path] (a sequence)."""

    def __init__(self, elem, length):
        self.elem, self.length = elem, length

    def align(self):
        return self.elem.align()

    def write(self, w, v):
        if isinstance(v, (bytes, str)):  # a text array: bytes, NUL-padded
            b = v.encode() if isinstance(v, str) else v
            if isinstance(self.length, int):
                b = b[:self.length].ljust(self.length, b"\0")
            v = list(b)
        if isinstance(self.length, int):
            assert len(v) == self.length
        for x in v:
            self.elem.write(w, x)


class Struct:
    def __init__(self, members, align=None):
        self.members, self.al = members, align

    def tsdl(self, indent="\t"):
        lines = ["struct {"]
        for name, t in self.members:
            lines.append(indent + "\t" + decl(t, name, indent + "\t") + ";")
        lines.append(indent + "}" + (" align(%d)" % self.al if self.al else ""))
        return "\n".join(lines)

    def align(self):
        a = max([1] + [t.align() for _, t in self.members if not isinstance(t, Variant)])
        return max(a, self.al or 1)

    def write(self, w, values):
        assert len(values) == len(self.members), (values, self.members)
        w.align(self.align())
        for (_, t), v in zip(self.members, values):
            t.write(w, v)


class Variant:
    def __init__(self, tag, options):
        self.tag, self.options = tag, options

    def tsdl(self, indent="\t"):
        lines = ["variant <%s> {" % self.tag]
        for name, t in self.options:
            lines.append(indent + "\t" + decl(t, name, indent + "\t") + ";")
        lines.append(indent + "}")
        return "\n".join(lines)

    def align(self):
        return 1

    def write(self, w, v):
        option, value = v
        self.options[option][1].write(w, value)


def decl(t, name, indent="\t"):
    """A member declaration: type then name, with array suffixes."""
    suffix = ""
    while isinstance(t, Array):
        suffix += "[%s]" % t.length
        t = t.elem
    body = t.tsdl(indent) if isinstance(t, (Struct, Variant)) else t.tsdl()
    return "%s %s%s" % (body, name, suffix)


U8, U16, U32, U64 = Int(8), Int(16), Int(32), Int(64)
S32, S64 = Int(32, signed=True), Int(64, signed=True)
CHAR = Int(8, signed=True, text=True)
BYTE = Int(8, signed=True)

# ---- the metadata around the event classes ----

UINT_ALIASES = """typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
"""

PREAMBLE = UINT_ALIASES + """typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;

trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = %(bo)s;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
%(instance)s	};
};

env {
	hostname = "gcscope-fixture";
	domain = "%(domain)s";
	tracer_name = "%(tracer)s";
	tracer_major = 2;
	tracer_minor = 11;
};

clock {
	name = "monotonic";
	uuid = "19dc2db9-887d-4b4c-811b-312165376836";
	description = "Monotonic Clock";
	freq = 1000000000; /* Frequency, in Hz */
	/* clock value offset from Epoch is: offset * (1/freq) */
	offset = %(offset)d;
};

typealias integer {
	size = 27; align = 1; signed = false;
	map = clock.monotonic.value;
} := uint27_clock_monotonic_t;

typealias integer {
	size = 32; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint32_clock_monotonic_t;

typealias integer {
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint64_clock_monotonic_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
};

struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct {
			uint27_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct {
			uint32_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

"""


def event_tsdl(ec):
    out = "event {\n\tname = \"%s\";\n\tid = %d;\n\tstream_id = %d;\n\tloglevel = 13;\n" % (
        ec.name, ec.id, ec.stream)
    if ec.context is not None:
        out += "\tcontext := " + ec.context.tsdl() + ";\n"
    out += "\tfields := " + ec.fields.tsdl() + ";\n};\n\n"
    return out


class EventClass:
    def __init__(self, id, name, members, stream=0, context=None):
        self.id, self.name, self.stream = id, name, stream
        self.fields = Struct(members)
        self.context = Struct(context) if context else None


# ---- packets ----

MAGIC = 0xC1FC1FC1


def uuid_bytes(u):
    return bytes.fromhex(u.replace("-", ""))


class StreamClass:
    """How a stream's packets and event headers are laid out."""

    def __init__(self, id, header, context, packet_context="lttng"):
        self.id, self.header, self.context, self.packet_context = id, header, context, packet_context


def write_header(w, sc, ec_id, ts, clock):
    """The event header; returns the clock the reader rebuilds."""
    if sc.header == "compact":
        bits, small_ids = 27, 31
    elif sc.header == "large":
        bits, small_ids = 32, 65535
    else:  # plain: 32-bit id then 64-bit timestamp
        w.align(8)
        w.int(ec_id, 32)
        w.int(ts, 64)
        return ts
    w.align(8)
    mask = (1 << bits) - 1
    if ec_id < small_ids and clock <= ts and ts - clock <= mask:
        w.int(ec_id, 5 if bits == 27 else 16, 1 if bits == 27 else 8)
        w.int(ts & mask, bits, 1 if bits == 27 else 8)
        base = clock & ~mask
        if (ts & mask) < (clock & mask):
            base += mask + 1
        rebuilt = base | (ts & mask)
        assert rebuilt == ts, (clock, ts)
        return ts
    w.int(small_ids, 5 if bits == 27 else 16, 1 if bits == 27 else 8)
    w.int(ec_id, 32)
    w.int(ts, 64)
    return ts


def write_packet(trace, sc, instance, cpu, seq, discarded, events, pad_to=128, begin=None):
    """One packet: events are (ts, EventClass, context values, field values,
    and for a class with a context of its own, its values)."""
    w = Bits(trace.be)
    w.int(MAGIC, 32)
    w.raw(uuid_bytes(trace.uuid))
    w.int(sc.id, 32)
    if trace.instance_ids:
        w.int(instance, 64)
    if begin is None:
        begin = events[0][0] - 1000
    end = events[-1][0] + 1000 if events else begin
    if sc.packet_context == "lttng":
        w.int(begin, 64)
        w.int(end, 64)
        sizes_at = w.pos
        w.int(0, 64)
        w.int(0, 64)
        w.int(seq, 64)
        w.int(discarded, 64)
        w.int(cpu, 32)
    else:  # "whole file": no sizes, the packet is the file
        w.int(begin, 64)
        w.int(discarded, 64)
        w.int(cpu, 32)
        sizes_at = None
    clock = begin
    for ev in events:
        ts, ec, ctx, values = ev[:4]
        clock = write_header(w, sc, ec.id, ts, clock)
        if sc.context is not None:
            sc.context.write(w, ctx)
        if ec.context is not None:
            ec.context.write(w, ev[4])
        ec.fields.write(w, values)
    content = w.pos
    if sizes_at is None:
        w.align(8)
        return bytes(w.buf)
    size = max(len(w.buf), 1)
    size = (size + pad_to - 1) // pad_to * pad_to
    w.buf.extend(bytes(size - len(w.buf)))
    w.int(content, 64, at=sizes_at)
    w.int(size * 8, 64, at=sizes_at + 64)
    return bytes(w.buf)


class Trace:
    def __init__(self, be, uuid, offset, domain, tracer, instance_ids=True):
        self.be, self.uuid, self.offset = be, uuid, offset
        self.domain, self.tracer, self.instance_ids = domain, tracer, instance_ids

    def preamble(self):
        return PREAMBLE % {
            "uuid": self.uuid, "bo": "be" if self.be else "le", "offset": self.offset,
            "domain": self.domain, "tracer": self.tracer,
            "instance": "\t\tuint64_t stream_instance_id;\n" if self.instance_ids else ""}


def packetize_metadata(trace, text, size=512):
    """LTTng's metadata stream: packets of a 37-byte header and text."""
    data = text.encode()
    room = size - 37
    out = bytearray()
    o = "<" if not trace.be else ">"
    for i in range(0, len(data), room):
        chunk = data[i:i + room]
        hdr = struct.pack(o + "I", 0x75D11D57) + uuid_bytes(trace.uuid)
        hdr += struct.pack(o + "IIIBBBBB", 0, (37 + len(chunk)) * 8, size * 8, 0, 0, 0, 1, 8)
        out += hdr + chunk + bytes(size - 37 - len(chunk))
    return bytes(out)


def write_file(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


# ---- kernel-le, kernel-be ----

TASK_STATE = [("TASK_RUNNING", 0, 0), ("TASK_INTERRUPTIBLE", 1, 1),
              ("TASK_UNINTERRUPTIBLE", 2, 2), ("EXIT_DEAD", 16, 16), ("TASK_DEAD", 64, 64),
              ("TASK_NEGATIVE", -3, -1)]


def kernel_classes():
    sched_switch = EventClass(0, "sched_switch", [
        ("_prev_comm", Array(CHAR, 16)),
        ("_prev_tid", S32),
        ("_prev_prio", S32),
        ("_prev_state", Int(64, signed=True, enum=TASK_STATE)),
        ("_next_comm", Array(CHAR, 16)),
        ("_next_tid", S32),
        ("_next_prio", S32)])
    bits = EventClass(1, "gcscope_bits", [
        ("_a", Int(3)),
        ("_b", Int(13, signed=True)),
        ("_c", Int(2, enum=[("X", 0, 0), ("Y", 1, 1), ("Z", 2, 3)])),
        ("_d", Int(7, signed=True)),
        ("_f", Int(64, align=1)),
        ("_g", U8),
        ("_h", Int(5, align=1))])
    seq = EventClass(2, "gcscope_sequences", [
        ("_count", U32),
        ("_vals", Array(Int(16, signed=True), "_count")),
        ("__name_length", U8),
        ("_name", Array(CHAR, "__name_length")),
        ("_path", Str())])
    empty = EventClass(3, "gcscope_empty", [])
    openat = EventClass(40, "syscall_entry_openat", [
        ("_dfd", S32),
        ("_filename", Str()),
        ("_flags", S32),
        ("_mode", U16)])
    return [sched_switch, bits, seq, empty, openat]


KERNEL_CONTEXT = Struct([("_pid", S32), ("_procname", Array(CHAR, 16))])
KERNEL_CONTEXT_TSDL = """stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[16];
	};
};

"""

W27 = 1 << 27


def kernel_events(classes, base):
    """Per CPU: packets of (ts, class, context, values). Times interleave
    across CPUs; low 27 bits wrap between compact events."""
    ss, bits, seq, empty, openat = classes
    ctx = lambda pid, comm: [pid, comm]

    def sw(prev, ptid, state, nxt, ntid):
        return [prev, ptid, 120, state, nxt, ntid, 100]

    t0 = base  # base is just below a multiple of 2^27
    cpu0 = [
        [(t0 + 100, ss, ctx(0, "swapper/0"), sw("swapper/0", 0, 0, "dotnet", 4242)),
         (t0 + 900, bits, ctx(4242, "dotnet"), [5, -4000, 2, -64, 0x8000000000000001, 0xAB, 17]),
         # the low 27 bits wrap here (t0 + 900 < 2^27 boundary < t0 + 5000)
         (t0 + 5000, seq, ctx(4242, "dotnet"), [3, [-1, 2, -32768], 4, "abcd", "/tmp/x"]),
         (t0 + 6000, empty, ctx(4242, "dotnet"), []),
         # over 2^27 later: the extended header
         (t0 + W27 + 7000, ss, ctx(4242, "dotnet"), sw("dotnet", 4242, -2, "swapper/0", 0)),
         (t0 + W27 + 8000, openat, ctx(4242, "dotnet"), [-100, "/etc/passwd", 0x80000, 0o644])],
        [(t0 + 3 * W27, bits, ctx(7, "kworker/0:1"), [7, 4095, 1, 63, 1, 0, 31]),
         (t0 + 3 * W27 + 50, bits, ctx(7, "kworker/0:1"), [0, -1, 3, 0, (1 << 64) - 1, 255, 0])]]
    cpu1 = [
        [(t0 + 400, ss, ctx(0, "swapper/1"), sw("swapper/1", 0, 0, "bash", 1000)),
         (t0 + 4000, seq, ctx(1000, "bash"), [0, [], 0, "", ""]),
         (t0 + W27 - 10, openat, ctx(1000, "bash"), [3, "ünïcödé.txt", 2, 0o600]),
         (t0 + W27 + 20, empty, ctx(1000, "bash"), [])]]
    cpu2 = [
        [(t0 + 500, seq, ctx(1000, "bash"), [1, [7], 16, "exactly16chars!!", "p"]),
         # same time as cpu0's 5000: babeltrace2's muxer breaks the tie
         (t0 + 5000, ss, ctx(1000, "bash"), sw("bash", 1000, 1, "sshd", 900)),
         (t0 + 2 * W27 + 1, ss, ctx(900, "sshd"), sw("sshd", 900, 64, "swapper/2", 0))]]
    return [cpu0, cpu1, cpu2]


def make_kernel(out, be, name):
    uuid = "6504716d-9e7f-8248-a78f-b1f99e3d7d%s" % ("be" if be else "1e")
    trace = Trace(be, uuid, 1584479919502699645, "kernel", "lttng-modules")
    classes = kernel_classes()
    text = "/* CTF 1.8 */\n\n" + trace.preamble() + KERNEL_CONTEXT_TSDL
    text += "".join(event_tsdl(ec) for ec in classes)
    write_file(os.path.join(out, name, "metadata"), packetize_metadata(trace, text))
    sc = StreamClass(0, "compact", KERNEL_CONTEXT)
    base = 5 * W27 - 1000
    for cpu, packets in enumerate(kernel_events(classes, base)):
        data = b""
        for seq, events in enumerate(packets):
            # stream_instance_id in the opposite order of the file names
            data += write_packet(trace, sc, 2 - cpu, cpu, seq, 3 * seq, events)
        if cpu == 1:  # a packet without events (a flush), as LTTng writes
            data += write_packet(trace, sc, 2 - cpu, cpu, 1, 0, [], begin=base + W27 + 2000)
        if cpu == 0 and be:  # cut in two files (lttng --tracefile-size): one stream
            first = len(write_packet(trace, sc, 2 - cpu, cpu, 0, 0, packets[0]))
            write_file(os.path.join(out, name, "channel0_0_0"), data[:first])
            write_file(os.path.join(out, name, "channel0_0_1"), data[first:])
            continue
        write_file(os.path.join(out, name, "channel0_%d" % cpu), data)
    # an idle CPU: LTTng leaves its stream file empty
    write_file(os.path.join(out, name, "channel0_3"), b"")


# ---- ust-gc ----

UST_CONTEXT = Struct([("_vpid", S32), ("_vtid", S32), ("_procname", Array(CHAR, 17))])
UST_STREAM_TSDL = """stream {
	id = 0;
	event.header := struct event_header_large;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vpid;
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtid;
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _procname[17];
	};
};

"""


def blob():
    """A runtime event written whole: _length, ____data___length, ___data__."""
    return [("_length", U32), ("____data___length", U32), ("___data__", Array(BYTE, "____data___length"))]


def ust_classes():
    c = {}
    c["runtime"] = EventClass(140, "DotNETRuntime:RuntimeInformationStart", blob())
    c["triggered"] = EventClass(39, "DotNETRuntime:GCTriggered", [("_Reason", U32), ("_ClrInstanceID", U16)])
    c["suspend_begin"] = EventClass(43, "DotNETRuntime:GCSuspendEEBegin_V1",
                                    [("_Reason", U32), ("_Count", U32), ("_ClrInstanceID", U16)])
    c["suspend_end"] = EventClass(41, "DotNETRuntime:GCSuspendEEEnd_V1", [("_ClrInstanceID", U16)])
    c["start"] = EventClass(66, "DotNETRuntime:GCStart_V2", [
        ("_Count", U32), ("_Depth", U32), ("_Reason", U32), ("_Type", U32), ("_ClrInstanceID", U16),
        ("_ClientSequenceNumber", U64)])
    c["end"] = EventClass(30, "DotNETRuntime:GCEnd_V1", [("_Count", U32), ("_Depth", U32), ("_ClrInstanceID", U16)])
    c["heapstats"] = EventClass(49, "DotNETRuntime:GCHeapStats_V2", blob())
    c["restart_begin"] = EventClass(110, "DotNETRuntime:GCRestartEEBegin_V1", [("_ClrInstanceID", U16)])
    c["restart_end"] = EventClass(23, "DotNETRuntime:GCRestartEEEnd_V1", [("_ClrInstanceID", U16)])
    c["alloc"] = EventClass(64, "DotNETRuntime:GCAllocationTick_V3", [
        ("_AllocationAmount", U32), ("_AllocationKind", U32), ("_ClrInstanceID", U16),
        ("_AllocationAmount64", U64), ("_TypeID", U64), ("_TypeName", Str()), ("_HeapIndex", U32),
        ("_Address", U64)])
    return c


def heapstats_blob(gen_sizes, promoted):
    """GCHeapStats_V2 in the manifest's layout (little-endian, whatever the
    trace's byte order: the runtime writes the blob)."""
    b = b""
    for g in range(4):
        b += struct.pack("<QQ", gen_sizes[g], promoted[g])
    b += struct.pack("<QQIIIH", 1024, 3, 2, 1, 17, 0)  # finalization, pinned, sink, handles, clr
    b += struct.pack("<QQ", gen_sizes[4], promoted[4])
    return [len(b), len(b), [x - 256 if x > 127 else x for x in b]]


def runtime_blob(cmdline):
    """RuntimeInformationStart in the manifest's layout (the runtime writes
    it as one blob): versions, flags, command line, GUID, library path."""
    utf16z = lambda t: t.encode("utf-16-le") + b"\0\0"
    b = struct.pack("<10HIB", 0, 2, 4, 0, 0, 0, 4, 0, 30319, 0, 0, 1)
    b += utf16z(cmdline) + bytes(16) + utf16z("/usr/share/dotnet/shared/libcoreclr.so")
    return [len(b), len(b), [x - 256 if x > 127 else x for x in b]]


def gc_events(c, t, pid, tid, number, gen, reason, sizes, promoted):
    """One blocking GC of `pid` starting at t (ns): its events, in the
    runtime's order, and its pause (suspend begin to restart end)."""
    P = lambda ts, k, vals: (ts, c[k], [pid, tid, "gcdemo" if pid == 4242 else "other"], vals)
    return [
        P(t, "suspend_begin", [1, number - 1, 0]),
        P(t + 20000, "suspend_end", [0]),
        P(t + 22000, "triggered", [0, 0]),
        P(t + 25000, "start", [number, gen, reason, 0, 0, 0]),
        P(t + 1500000, "end", [number, gen, 0]),
        P(t + 1510000, "heapstats", heapstats_blob(sizes, promoted)),
        P(t + 1520000, "restart_begin", [0]),
        P(t + 1600000, "restart_end", [0]),
    ]


UST_BASE = (3 << 32) - 30000  # the 32-bit compact timestamps wrap in the first GC


def write_ust(udir, be):
    """The user-space trace of ust-gc (be: written big-endian, as lttng-ust
    on a big-endian host; the same events)."""
    base = UST_BASE
    # The user-space trace: its clock offset is 645 ns less than the
    # kernel's, and its raw values start just below a 2^32 boundary.
    utrace = Trace(be, "e0fe85b7-b861-46a3-8c39-88de301a4385", 1584479919502699000, "ust",
                   "lttng-ust")
    c = ust_classes()
    utext = "/* CTF 1.8 */\n\n" + utrace.preamble() + UST_STREAM_TSDL
    utext += "".join(event_tsdl(ec) for ec in sorted(c.values(), key=lambda e: e.id))
    write_file(os.path.join(udir, "metadata"), utext.encode())

    MB = 1 << 20
    g1 = gc_events(c, base, 4242, 4250, 1, 0, 0, [3 * MB, 1 * MB, 2 * MB, 0, 0],
                   [MB // 2, 0, 0, 0, 0])
    g2 = gc_events(c, base + 40000000, 4242, 4250, 2, 1, 1, [MB, 2 * MB, 2 * MB, 0, 4096],
                   [MB // 4, MB, 0, 0, 0])
    g3 = gc_events(c, base + 20000000, 4343, 4343, 1, 2, 1, [MB, MB, 5 * MB, 64 * 1024, 8192],
                   [0, MB // 8, 4 * MB, 0, 0])
    alloc = lambda ts, pid, tid, amount, tn: (
        ts, c["alloc"], [pid, tid, "gcdemo" if pid == 4242 else "other"],
        [amount & 0xFFFFFFFF, 0, 0, amount, 0x7F0B5AC54020, tn, 0, 0x7F0B33FFF048])
    rt = lambda ts, pid, proc: (ts, c["runtime"], [pid, pid, proc], runtime_blob("dotnet %s.dll" % proc))
    # pid 4444's procname is empty right after another event of its class
    # named "other" (babeltrace2 2.0 recycles the event and keeps the old
    # text behind an empty string); so is an AllocationTick's TypeName.
    cpu0 = [rt(base - 7000000, 4242, "gcdemo"), rt(base - 6500000, 4343, "other"),
            rt(base - 6400000, 4444, ""),
            alloc(base - 5000000, 4242, 4251, 102400, "System.Byte[]"),
            alloc(base - 10000, 4242, 4251, 104000, "System.String"),
            alloc(base - 9000, 4242, 4251, 1000, "")] + g1[:4] + \
        [alloc(base + 10000000, 4242, 4251, 100000, "Demo.Node<System.Int32>")]
    # the rest of GC 1 and GC 2 on CPU 1 (the GC thread moved)
    cpu1 = g1[4:] + g2
    cpu0 += [alloc(base + 30000000, 4343, 4344, 5 << 32, "Big")] + g3
    cpu0.sort(key=lambda e: e[0])
    cpu1.sort(key=lambda e: e[0])
    sc = StreamClass(0, "large", UST_CONTEXT)
    for cpu, evs in enumerate([cpu0, cpu1]):
        # two packets on CPU 0
        packets = [evs[:8], evs[8:]] if cpu == 0 else [evs]
        data = b""
        for seq, p in enumerate(packets):
            data += write_packet(utrace, sc, cpu, cpu, seq, 0, p, pad_to=256)
        write_file(os.path.join(udir, "channel0_%d" % cpu), data)



def make_ust_gc(out):
    name = "ust-gc"
    # The kernel trace of the session: a few scheduler events.
    ktrace = Trace(False, "f504716d-9e7f-8248-a78f-b1f99e3d7dcc", 1584479919502699645, "kernel",
                   "lttng-modules")
    kclasses = kernel_classes()
    ktext = "/* CTF 1.8 */\n\n" + ktrace.preamble() + KERNEL_CONTEXT_TSDL
    ktext += "".join(event_tsdl(ec) for ec in kclasses)
    kdir = os.path.join(out, name, "kernel")
    write_file(os.path.join(kdir, "metadata"), packetize_metadata(ktrace, ktext, 4096))

    write_ust(os.path.join(out, name, "ust", "uid", "1000", "64-bit"), False)
    base = UST_BASE
    ss = kclasses[0]
    kevents = [(base - 6000000 - 645, ss, [4242, "dotnet"],
                [b"dotnet", 4251, 120, 0, b"swapper/0", 0, 120]),
               # at the same nanosecond as the user-space GC's SuspendEE
               (base - 645, ss, [0, "swapper/0"], [b"swapper/0", 0, 120, 0, b"dotnet", 4250, 120]),
               (base + 40000000 - 645 + 1, ss, [4242, "dotnet"],
                [b"dotnet", 4250, 120, 1, b"swapper/0", 0, 120])]
    write_file(os.path.join(kdir, "channel0_0"),
               write_packet(ktrace, StreamClass(0, "compact", KERNEL_CONTEXT), 0, 0, 0, 0, kevents))


# ---- mixed ----

MIXED_TSDL = "/* CTF 1.8 */\n\n" + UINT_ALIASES + """
trace {
	major = 1;
	minor = 8;
	uuid = "2a6422d0-6cee-11e0-8c08-cb07d7b3a564";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
	};
};

clock {
	name = "mono";
	freq = 1000000000;
	offset_s = 1700000000;
	offset = 250;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.mono.value; } := tick_t;
typealias integer { size = 32; align = 8; signed = false; map = clock.mono.value; } := tick32_t;

/* stream 0: no packet_size or content_size, a packet is the whole file */
stream {
	id = 0;
	packet.context := struct {
		tick_t timestamp_begin;
		uint64_t events_discarded;
		uint32_t cpu_id;
	};
	event.header := struct {
		uint32_t id;
		tick_t timestamp;
	};
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; } _vpid;
		integer { size = 32; align = 8; signed = 1; } _vtid;
		string _procname;
	};
};

stream {
	id = 1;
	packet.context := struct packet_context_1 {
		tick_t timestamp_begin;
		tick_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t packet_seq_num;
		uint64_t events_discarded;
		uint32_t cpu_id;
	};
	event.header := struct {
		enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
		variant <id> {
			struct { tick32_t timestamp; } compact;
			struct { uint32_t id; tick_t timestamp; } extended;
		} v;
	} align(8);
};

"""


def make_mixed(out):
    name = "mixed"
    trace = Trace(False, "2a6422d0-6cee-11e0-8c08-cb07d7b3a564", 0, "", "", instance_ids=False)
    ctx0 = Struct([("_vpid", S32), ("_vtid", S32), ("_procname", Str())])
    kind = Int(8, enum=[("_INT", 0, 0), ("_STR", 1, 1), ("_DBL", 2, 2)])
    sample = EventClass(0, "DotNETRuntime:ThreadPoolWorkerThreadAdjustmentSample",
                        [("_Throughput", Float(64)), ("_ClrInstanceID", U16)])
    floats = EventClass(1, "gcscope:floats", [("_f", Float(32)), ("_b", U8), ("_d", Float(64))])
    variant = EventClass(2, "gcscope:variant", [
        ("_kind", kind),
        ("_value", Variant("_kind", [("_INT", S32), ("_STR", Str()), ("_DBL", Float(64))])),
        ("_after", U16)])
    pair = Struct([("_a", U8), ("_b", U16)])
    nested = EventClass(0, "gcscope:nested", [
        ("_n", U8),
        ("_pairs", Array(pair, 2)),
        ("_grid", Array(Array(Int(16, signed=True), 3), 2)),
        ("_inner", Struct([("_x", U32), ("_tags", Array(CHAR, "_x"))], align=64)),
        ("_last", U8)], stream=1)
    triggered = EventClass(1, "DotNETRuntime:GCTriggered",
                           [("_Reason", U32), ("_ClrInstanceID", U16)], stream=1)
    # a payload field mapped to the clock moves it (the event's time is
    # the clock after its payload); a context of the event class's own
    clocked = EventClass(2, "gcscope:clocked", [("_when", Int(64, clock="mono")), ("_v", U8)],
                         stream=1, context=[("_seq", U32)])
    # lttng-ust's floats (align 8): fields already in the manifest's layout
    D8 = Float(64, align=8)
    stats = EventClass(3, "DotNETRuntime:ThreadPoolWorkerThreadAdjustmentStats",
                       [("_" + n, D8) for n in ("Duration", "Throughput", "ThreadWave",
                                                "ThroughputWave", "ThroughputErrorEstimate",
                                                "AverageThroughputErrorEstimate", "ThroughputRatio",
                                                "Confidence", "NewControlSetting")] +
                       [("_NewThreadWaveMagnitude", U16), ("_ClrInstanceID", U16)], stream=1)
    # byte orders said per field, an integer aligned beyond its size, a
    # fixed array of integers, a float of 32 bits at byte alignment
    orders = EventClass(4, "gcscope:orders", [
        ("_be32", Int(32, bo="be")), ("_n16", Int(16, bo="native")), ("_le16", Int(16, bo="le")),
        ("_over", Int(16, align=32)), ("_arr", Array(U32, 3)),
        ("_bes64", Int(64, signed=True, bo="be")), ("_f", Float(32, align=8))], stream=1)
    text = MIXED_TSDL + "".join(event_tsdl(ec) for ec in [sample, floats, variant, nested, triggered,
                                                          clocked, stats, orders])
    d = os.path.join(out, name)
    write_file(os.path.join(d, "metadata"), text.encode())
    s0 = StreamClass(0, "plain", ctx0, packet_context="whole file")
    s1 = StreamClass(1, "large", None)
    c = lambda pid: [pid, pid + 1, "app%d" % pid]
    t = 1000000
    write_file(os.path.join(d, "stream0_0"), write_packet(trace, s0, 0, 0, 0, 7, [
        (t + 10, sample, c(10), [12.5, 0]),
        (t + 30, floats, c(10), [1.5, 255, -2.25]),
        # an empty procname right after another event of its class
        (t + 35, floats, [30, 31, ""], [0.0, 1, 0.0]),
        (t + 50, variant, c(10), [0, (0, -7), 9]),
        (t + 70, variant, c(10), [1, (1, "text"), 10]),
        (t + 90, variant, c(10), [2, (2, 0.125), 11]),
        (t + 110, sample, c(10), [-0.0, 3])]))
    write_file(os.path.join(d, "stream0_1"), write_packet(trace, s0, 0, 1, 0, 0, [
        (t + 20, floats, c(20), [-3.0e38, 0, 1e-300]),
        (t + 100, sample, c(20), [float("inf"), 1])]))
    write_file(os.path.join(d, "stream1_0"), write_packet(trace, s1, 0, 0, 0, 2, [
        (t + 40, nested, None, [3, [[1, 2], [3, 65535]], [[-1, 0, 1], [32767, -32768, 5]],
                                [2, "hi"], 9]),
        (t + 80, triggered, None, [4, 0]),
        (t + 85, clocked, None, [t + 95, 1], [77]),
        (t + 97, clocked, None, [t + 98, 2], [78]),
        (t + 99, stats, None, [1.5, 2.25, -3.0, 0.1, 1e100, -1e-100, 7.0, 0.95, 16.0, 4, 0]),
        (t + 99, orders, None, [0x01020304, 0x0506, 0x0708, 0x090A, [1, 2, 0xFFFFFFFF], -2, 0.5]),
        (t + (1 << 32) + 5, nested, None, [0, [[0, 0], [0, 0]], [[0] * 3, [0] * 3], [0, ""], 0])]))


# ---- single ----

SINGLE_TSDL = """/* CTF 1.8 */

trace {
	major = 1;
	minor = 8;
	byte_order = be;
	packet.header := struct {
		integer { size = 32; align = 8; } magic;
	};
};

clock {
	name = c;
	freq = 1000;
	offset_s = 1600000000;
};

/* no stream_id in the packet header (nor a stream id): the trace's one
 * stream class; no id in the event header: the stream's one event class;
 * timestamp_end without timestamp_begin: the clock after a packet */
stream {
	packet.context := struct {
		integer { size = 32; align = 8; } packet_size;
		integer { size = 32; align = 8; } content_size;
		integer { size = 16; align = 8; } cpu_id;
		integer { size = 64; align = 8; map = clock.c.value; } timestamp_end;
	};
	event.header := struct {
		integer { size = 16; align = 8; map = clock.c.value; } timestamp;
	};
};

event {
	name = "DotNETRuntime:GCTriggered";
	id = 9;
	fields := struct {
		integer { size = 32; align = 8; } _Reason;
		integer { size = 16; align = 8; } _ClrInstanceID;
	};
};
"""


def make_single(out):
    d = os.path.join(out, "single")
    write_file(os.path.join(d, "metadata"), SINGLE_TSDL.encode())
    data = b""
    for cpu, times, end in ((3, [10, 65535, 65536 + 7], 70000), (3, [200000], 200001)):
        w = Bits(True)
        w.int(MAGIC, 32)
        w.int(0, 32)
        w.int(0, 32)
        w.int(cpu, 16)
        w.int(end, 64)
        for i, ts in enumerate(times):
            w.int(ts & 0xFFFF, 16)
            w.int(i + 1, 32)
            w.int(0, 16)
        content = w.pos
        size = (len(w.buf) + 15) // 16 * 16
        w.buf.extend(bytes(size - len(w.buf)))
        w.int(size * 8, 32, at=32)
        w.int(content, 32, at=64)
        data += bytes(w.buf)
    write_file(os.path.join(d, "stream"), data)


# ---- clock3g ----

CLOCK3G_TSDL = "/* CTF 1.8 */\n\n" + UINT_ALIASES + """
trace {
	major = 1;
	minor = 8;
	uuid = "3c3c3c3c-0000-4000-8000-000000000003";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

/* 3 GHz, not LTTng's 1 GHz: a cycle is a third of a nanosecond */
clock {
	name = tsc;
	freq = 3000000000;
	offset = 2;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.tsc.value; } := tsc_t;

stream {
	packet.context := struct {
		tsc_t timestamp_begin;
		uint32_t packet_size;
		uint32_t content_size;
	};
	event.header := struct {
		uint32_t id;
		tsc_t timestamp;
	};
};

event {
	name = "DotNETRuntime:GCTriggered";
	id = 0;
	fields := struct {
		uint32_t _Reason;
		uint16_t _ClrInstanceID;
	};
};
"""


def make_clock3g(out):
    """Two stream files of a 3 GHz clock: cycle 3 in "a" (stream 1), cycle 4
    in "b" (stream 0). From the origin (offset 2 cycles) they are 5/3 and
    6/3 ns: a first. babeltrace2 2.0 rounds the offset and the value down
    each on its own (0 + 1, 0 + 1 ns), sees a tie and puts b (the lower
    stream id) first: an order we do not copy (docs/format-ctf.md)."""
    d = os.path.join(out, "clock3g")
    write_file(os.path.join(d, "metadata"), CLOCK3G_TSDL.encode())
    for name, instance, cycle, reason in (("a", 1, 3, 1), ("b", 0, 4, 2)):
        w = Bits(False)
        w.int(MAGIC, 32)
        w.int(0, 32)
        w.int(instance, 64)
        w.int(0, 64)
        sizes = w.pos
        w.int(0, 32)
        w.int(0, 32)
        w.int(0, 32)
        w.int(cycle, 64)
        w.int(reason, 32)
        w.int(0, 16)
        w.int(len(w.buf) * 8, 32, at=sizes)
        w.int(len(w.buf) * 8, 32, at=sizes + 32)
        write_file(os.path.join(d, name), bytes(w.buf))


# ---- ties ----


class Lcg:
    """A fixed pseudo-random sequence (not Python's random: its algorithm
    is no promise across versions)."""

    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.x >> 33) % n

    def choice(self, items):
        return items[self.below(len(items))]


def make_ties(out):
    """Two kernel-style traces (UUIDs in the opposite order of their
    folders, clock offsets 645 ns apart) of 3 and 2 CPU files, 8 packets
    each, whose events often fall on the same nanosecond, within a file and
    across files and traces: the order babeltrace2's muxer gives ties,
    over many packets (each event's pid says which file and which event)."""
    rnd = Lcg(20261123)
    empty = kernel_classes()[3]
    for tname, uuid, offset, instances in (
            ("k", "f504716d-9e7f-8248-a78f-b1f99e3d7dcc", 1645, [5, 0, 9]),
            ("u", "0004716d-9e7f-8248-a78f-b1f99e3d7dcc", 1000, [2, 1])):
        trace = Trace(False, uuid, offset, "kernel", "lttng-modules")
        text = "/* CTF 1.8 */\n\n" + trace.preamble() + KERNEL_CONTEXT_TSDL
        text += "".join(event_tsdl(ec) for ec in kernel_classes())
        d = os.path.join(out, "ties", tname)
        write_file(os.path.join(d, "metadata"), packetize_metadata(trace, text))
        sc = StreamClass(0, "compact", KERNEL_CONTEXT)
        for cpu, instance in enumerate(instances):
            ns = 10 * W27 + 5000
            data = b""
            for p in range(8):
                ns += 1000
                events = []
                for i in range(rnd.choice([1, 3, 7, 20])):
                    ns += rnd.choice([0, 0, 1, 2, 5000, 200000000])
                    pid = (100 if tname == "k" else 200) * 1000 + cpu * 10000 + p * 100 + i
                    events.append((ns - offset, empty, [pid, "%s%d" % (tname, cpu)], []))
                data += write_packet(trace, sc, instance, cpu, p, 0, events, begin=events[0][0])
                ns += 1000
            write_file(os.path.join(d, "channel0_%d" % cpu), data)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "data", "ctf")
    make_kernel(out, False, "kernel-le")
    make_kernel(out, True, "kernel-be")
    make_ust_gc(out)
    write_ust(os.path.join(out, "ust-be"), True)
    make_mixed(out)
    make_single(out)
    make_clock3g(out)
    make_ties(out)


if __name__ == "__main__":
    main()
