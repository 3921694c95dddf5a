"""smpclient 7.3.0 (PyPI) updates both images of dfu_application.zip on `nrfloader simulate-serial --protocol smp
--smp-images 2`, and prints what it saw: a third-party client's view of the two-image simulator.

Usage: python3 two-images.py PORT ../dfu_application.zip > transcript.txt
"""

import asyncio
import json
import sys
import zipfile

from smp import error as smperr
from smpclient import SMPClient
from smpclient.generics import error, success
from smpclient.requests.image_management import ImageStatesRead, ImageStatesWrite
from smpclient.requests.os_management import ResetWrite
from smpclient.transport.serial import SMPSerialTransport


def states(response) -> list[str]:
    return [
        f"  image {s.image} slot {s.slot} {s.version} {s.hash.hex()[:16]} "
        + " ".join(name for name in ("active", "confirmed", "pending", "permanent") if getattr(s, name))
        for s in response.images
    ]


async def read(client: SMPClient, title: str) -> None:
    response = await client.request(ImageStatesRead())
    assert success(response), response
    print(title)
    print("\n".join(states(response)))


async def main(port: str, package: str) -> None:
    archive = zipfile.ZipFile(package)
    manifest = json.loads(archive.read("manifest.json"))
    images = [(int(entry["image_index"]), archive.read(entry["file"])) for entry in manifest["files"]]
    client = SMPClient(SMPSerialTransport(), port)
    await client.connect()
    await read(client, "before:")
    hashes = []
    for number, image in images:
        async for offset in client.upload(image, slot=number):
            pass
        print(f"uploaded image {number}: {offset} bytes")
    response = await client.request(ImageStatesRead())
    for number, _ in images:
        slot = next(s for s in response.images if s.image == number and s.slot == 1)
        hashes.append(slot.hash)
        answer = await client.request(ImageStatesWrite(hash=slot.hash, confirm=False))
        assert success(answer), answer
        print(f"test image {number}: ok")
    await read(client, "after test:")
    await client.request(ResetWrite())
    await client.disconnect()
    await asyncio.sleep(2)
    await client.connect()
    await read(client, "after reset:")
    for number, digest in zip([n for n, _ in images], hashes):
        answer = await client.request(ImageStatesWrite(hash=digest, confirm=True))
        print(f"confirm image {number}: " + ("ok" if success(answer) else f"error {answer}"))
    await read(client, "after confirm:")
    await client.disconnect()


asyncio.run(main(sys.argv[1], sys.argv[2]))
