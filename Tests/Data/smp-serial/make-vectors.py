import json, random
# Test vectors for the SMP serial framing: smp.packet.encode's line streams for a set of frames.
# Run from the repository root with a venv that has smpclient 7.3.0 installed (see Tests/Data/mcuboot/README.md for
# the venv): .build-imgtool/bin/pip install smpclient==7.3.0 && .build-imgtool/bin/python Tests/Data/smp-serial/make-vectors.py
from smp.packet import encode
r = random.Random(20)
frames = []
# A real frame: image state read request, v2, seq 0 (header 08 00 0001 0001 00 00, body a0).
frames.append(bytes.fromhex("0800000100010000a0"))
frames.append(b"Hello, world!")
for n in [1, 2, 3, 88, 89, 90, 91, 92, 93, 94, 200, 381, 1000]:
    frames.append(bytes(r.getrandbits(8) for _ in range(n)))
out = []
for f in frames:
    for ll in [127, 8, 64]:
        lines = list(encode(f, line_length=ll))
        out.append({"frame": f.hex(), "line_length": ll, "stream": b"".join(lines).hex()})
json.dump({"generator": "smp 4.2.0 smp.packet.encode (PyPI, installed with smpclient 7.3.0)", "vectors": out}, open("Tests/Data/smp-serial/smp-packet-encode.json", "w"), indent=1)
print(len(out))
