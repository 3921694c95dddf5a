"""Writes the small Intel HEX and binary inputs of this folder (seeded, so a rerun gives the same bytes)."""
import random
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
rng = random.Random(12)


def hexfile(path, chunks):
    """chunks: list of (address, bytes); written as 16-byte data records under type-4 extended linear addresses."""
    lines = []
    upper = None

    def record(kind, address, data):
        body = bytes([len(data), (address >> 8) & 0xFF, address & 0xFF, kind]) + data
        lines.append(":" + (body + bytes([(-sum(body)) & 0xFF])).hex().upper())

    for address, data in chunks:
        for offset in range(0, len(data), 16):
            at = address + offset
            if at >> 16 != upper:
                upper = at >> 16
                record(4, 0, struct.pack(">H", upper))
            record(0, at & 0xFFFF, data[offset:offset + 16])
    record(1, 0, b"")
    with open(f"{out}/{path}", "w") as f:
        f.write("\n".join(lines) + "\n")


# An application with an MBR fragment below 0x1000, a gap, an odd-sized tail and a UICR word.
hexfile("app-gaps-mbr-uicr.hex", [
    (0x0000, rng.randbytes(0x100)),
    (0x26000, rng.randbytes(0x100)),
    (0x26400, rng.randbytes(7)),
    (0x10001014, struct.pack("<I", 0x78000)),
])
# An S132-style SoftDevice: data from 0x1000, the info structure magic at 0x4004, so nrfutil starts it at 0x3000.
sd = bytearray(rng.randbytes(0x5000))
sd[0x3004:0x3008] = struct.pack("<I", 0x51B1E5DB)
hexfile("s132-like-sd.hex", [(0x0000, rng.randbytes(0x40)), (0x1000, bytes(sd))])
# A SoftDevice without the magic (nrfutil starts it at 0x1000).
hexfile("plain-sd.hex", [(0x1000, rng.randbytes(0x2000))])
# A bootloader at 0x78000 with the UICR bootloader address.
hexfile("bootloader.hex", [(0x78000, rng.randbytes(0x1802)), (0x10001014, struct.pack("<I", 0x78000))])
# A binary application of 1001 bytes (nrfutil pads it to 1004).
with open(f"{out}/app-raw.bin", "wb") as f:
    f.write(rng.randbytes(1001))
