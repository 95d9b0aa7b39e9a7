#!/usr/bin/env python3
"""Where a running process's resident memory is: by mapping, and for its own
executable by ELF section and by the Swift module of the code in each page.

    Tests/bench/rss-breakdown.py PID               the breakdown
    Tests/bench/rss-breakdown.py --page-out PID    first drop every read-only
                                                   file page (process_madvise
                                                   MADV_PAGEOUT), so that what
                                                   runs next maps back only what
                                                   it touches: the working set

The evidence behind docs/memory.md. Reads /proc/PID/smaps and /proc/PID/pagemap
(root: the present bit per page), and the executable's program headers,
sections and symbols with readelf and nm (binutils). A page of code counts for
every module with a symbol in it, shared evenly. Python 3 standard library only.
"""

import argparse
import bisect
import collections
import ctypes
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
SYS_PIDFD_OPEN, SYS_PROCESS_MADVISE, MADV_PAGEOUT = 434, 440, 21

# Mangled-name fragments → the module they belong to; the first match wins.
MODULES = [
    ("FoundationInternationalization", "FoundationInternationalization"),
    ("FoundationEssentials", "FoundationEssentials"),
    ("10Foundation", "Foundation"), ("_FoundationICU", "ICU"), ("icu_", "ICU"),
    ("TOMLKit", "TOMLKit"), ("toml", "toml++"), ("ArgumentParser", "ArgumentParser"),
    ("7Logging", "swift-log"), ("Sysound", "sysound"), ("swift_", "Swift runtime"),
    ("_ZN5swift", "Swift runtime"), ("$ss", "Swift standard library"), ("CF", "CoreFoundation"),
    ("$s", "Swift, other modules"),
]


def module_of(symbol):
    return next((label for key, label in MODULES if key in symbol), "C and others")


def mappings(pid):
    """[(start, end, perms, offset, path, fields)] from smaps."""
    out, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \S+\s*(.*)$", line)
            if m:
                current = (int(m.group(1), 16), int(m.group(2), 16), m.group(3), int(m.group(4), 16),
                           m.group(5) or "[anonymous]", {})
                out.append(current)
            elif current and ":" in line:
                key, value = line.split(":", 1)
                if value.strip().endswith("kB"):
                    current[5][key] = int(value.split()[0]) * 1024
    return out


def page_out(pid):
    """Asks the kernel to reclaim every page of the process's read-only file mappings."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        sys.exit(f"rss-breakdown: pidfd_open({pid}): {os.strerror(ctypes.get_errno())}")

    class IOVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    for start, end, perms, _, path, _ in mappings(pid):
        if path.startswith("/") and "w" not in perms:
            vec = IOVec(start, end - start)
            libc.syscall(SYS_PROCESS_MADVISE, pidfd, ctypes.byref(vec), 1, MADV_PAGEOUT, 0)
    os.close(pidfd)


def elf_tables(path):
    """The executable's LOAD segments, sections and sized symbols."""
    def run(*args):
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout
    loads = []
    for line in run("readelf", "-lW", path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset, vaddr, file size
    sections = []
    for line in run("readelf", "-SW", path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            sections.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
    symbols = []
    for line in run("nm", "-S", "--defined-only", path).splitlines():
        f = line.split()
        if len(f) == 4:
            symbols.append((int(f[0], 16), int(f[1], 16), f[3]))
    return loads, sorted(sections), sorted(symbols)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pid", type=int)
    parser.add_argument("--page-out", action="store_true", help="reclaim the read-only file pages and exit")
    args = parser.parse_args(argv)
    if args.page_out:
        page_out(args.pid)
        return 0

    maps = mappings(args.pid)
    executable = os.path.realpath(f"/proc/{args.pid}/exe")
    status = dict(line.split(":", 1) for line in open(f"/proc/{args.pid}/status"))
    print("VmRSS " + status["VmRSS"].strip() + ", RssAnon " + status["RssAnon"].strip()
          + ", RssFile " + status["RssFile"].strip())

    print("\nby mapping (MB resident, of it anonymous):")
    by_file = collections.Counter()
    anonymous = collections.Counter()
    for _, _, _, _, path, fields in maps:
        name = os.path.basename(path) if path.startswith("/") else path
        by_file[name] += fields.get("Rss", 0)
        anonymous[name] += fields.get("Anonymous", 0)
    for name, rss in by_file.most_common(16):
        print(f"  {rss / 1e6:6.2f}  {anonymous[name] / 1e6:6.2f}  {name}")
    largest = max((m for m in maps if not m[4].startswith("/")), key=lambda m: m[5].get("Anonymous", 0))
    print(f"  largest anonymous mapping: {largest[5].get('Anonymous', 0) / 1e6:.2f} MB ({largest[4]})")

    loads, sections, symbols = elf_tables(executable)
    starts = [s[0] for s in sections]
    addresses = [s[0] for s in symbols]
    by_section = collections.Counter()
    by_module = collections.Counter()
    with open(f"/proc/{args.pid}/pagemap", "rb") as pagemap:
        for start, end, _, offset, path, _ in maps:
            if path != executable:
                continue
            for page in range(start, end, PAGE):
                pagemap.seek(page // PAGE * 8)
                if not (struct.unpack("Q", pagemap.read(8))[0] >> 63) & 1:
                    continue
                file_offset = offset + page - start
                vaddr = next((v + file_offset - o for o, v, size in loads if o <= file_offset < o + size), None)
                if vaddr is None:
                    by_section["(beyond the file: .bss)"] += PAGE
                    continue
                k = bisect.bisect_right(starts, vaddr) - 1
                section = sections[k][2] if k >= 0 and vaddr < sections[k][0] + sections[k][1] else "(between sections)"
                by_section[section] += PAGE
                if section != ".text":
                    continue
                j = max(bisect.bisect_right(addresses, vaddr) - 1, 0)
                modules = set()
                while j < len(symbols) and symbols[j][0] < vaddr + PAGE:
                    if symbols[j][0] + max(symbols[j][1], 1) > vaddr:
                        modules.add(module_of(symbols[j][2]))
                    j += 1
                modules = modules or {"(no symbol)"}
                for module in modules:
                    by_module[module] += PAGE / len(modules)
    print(f"\n{os.path.basename(executable)} by section (MB resident):")
    for section, size in by_section.most_common(10):
        print(f"  {size / 1e6:6.2f}  {section}")
    print("\nits .text by module (MB resident):")
    for module, size in by_module.most_common(12):
        print(f"  {size / 1e6:6.2f}  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
