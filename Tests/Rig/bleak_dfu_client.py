"""A Secure DFU exchange driven by bleak, a third-party BLE client, against `nrfloader simulate`.

Run it with the rig's venv interpreter, on the bus named by DBUS_SYSTEM_BUS_ADDRESS:

    .build-rig/venv/bin/python Tests/Rig/bleak_dfu_client.py --adapter hci0 \
        --address C0:DE:00:00:00:02 --package Tests/Data/packages/nrfutil617-blinky-signed.zip [--firmware]

It scans for the device, connects, enables notifications on the Secure DFU Control Point and sends the init
packet of the package's application (Nordic's Secure DFU procedure, dfu-protocols.md): Set PRN, Select command,
Create command, the init packet through the DFU Packet characteristic (write without response), Calculate
Checksum (checked against zlib.crc32) and Execute. With --firmware it then sends the image the same way in data
objects and executes each. With --buttonless it first tells the application at --address to enter its
bootloader (Buttonless DFU without bonds) and then updates the bootloader at --bootloader-address. Every
control point write ('>') and notification ('<') is printed as hex; any unexpected answer ends the script with
status 1 and a one-line reason on stderr.

Nothing here uses nrfloader's own D-Bus code: bleak talks to BlueZ (or the bluezoo stand-in) itself.
"""

import argparse
import asyncio
import json
import struct
import sys
import zipfile
import zlib

from bleak import BleakClient, BleakScanner

CONTROL_POINT = "8ec90001-f315-4f60-9fb8-838830daea50"
PACKET = "8ec90002-f315-4f60-9fb8-838830daea50"
BUTTONLESS = "8ec90003-f315-4f60-9fb8-838830daea50"

# Secure DFU opcodes and values (nRF5 SDK nrf_dfu_req_handler.h).
CREATE, SET_PRN, CALCULATE_CHECKSUM, EXECUTE, SELECT = 0x01, 0x02, 0x03, 0x04, 0x06
RESPONSE, SUCCESS = 0x60, 0x01
COMMAND_OBJECT, DATA_OBJECT = 0x01, 0x02
# Buttonless DFU (nRF5 SDK ble_dfu.h): Enter Bootloader, and the response code.
ENTER_BOOTLOADER, BUTTONLESS_RESPONSE = 0x01, 0x20


class ExchangeError(Exception):
    """The device answered something other than what the procedure expects."""


def hexdump(data: bytes) -> str:
    return " ".join(f"{byte:02X}" for byte in data)


def application_files(path: str) -> tuple[bytes, bytes]:
    """The init packet (.dat) and image (.bin) of the package's application (or its only part)."""
    with zipfile.ZipFile(path) as package:
        manifest = json.loads(package.read("manifest.json"))["manifest"]
        part = manifest.get("application") or next(iter(manifest.values()))
        return package.read(part["dat_file"]), package.read(part["bin_file"])


class SecureDFU:
    def __init__(self, client: BleakClient, notifications: asyncio.Queue, timeout: float):
        self.client = client
        self.notifications = notifications
        self.timeout = timeout
        self.packet = client.services.get_characteristic(PACKET)
        if self.packet is None:
            raise ExchangeError("the device has no DFU Packet characteristic")
        # bleak reads it from GattCharacteristic1.MTU: MTU - 3.
        self.chunk = self.packet.max_write_without_response_size

    async def request(self, request: bytes) -> bytes:
        """Writes a control point request and returns the payload of its successful response."""
        print(f"> {hexdump(request)}", flush=True)
        await self.client.write_gatt_char(CONTROL_POINT, request, response=True)
        try:
            response = await asyncio.wait_for(self.notifications.get(), self.timeout)
        except asyncio.TimeoutError:
            raise ExchangeError(f"no response to {hexdump(request)} within {self.timeout} s") from None
        print(f"< {hexdump(response)}", flush=True)
        if response[:2] != bytes([RESPONSE, request[0]]):
            raise ExchangeError(f"response {hexdump(response)} does not answer {hexdump(request)}")
        if response[2] != SUCCESS:
            raise ExchangeError(f"request {hexdump(request)} failed with result 0x{response[2]:02X}")
        return response[3:]

    async def stream(self, data: bytes) -> None:
        """Writes data through the packet characteristic, without response."""
        writes = 0
        for offset in range(0, len(data), self.chunk):
            await self.client.write_gatt_char(self.packet, data[offset:offset + self.chunk], response=False)
            writes += 1
        print(f"packet: {len(data)} bytes in {writes} writes of at most {self.chunk}", flush=True)

    async def checksum(self, expected_offset: int, expected_crc: int) -> None:
        offset, crc = struct.unpack("<II", await self.request(bytes([CALCULATE_CHECKSUM])))
        if (offset, crc) != (expected_offset, expected_crc):
            raise ExchangeError(
                f"checksum is offset {offset} CRC 0x{crc:08X}, sent {expected_offset} CRC 0x{expected_crc:08X}")
        print(f"checksum: offset {offset}, CRC-32 0x{crc:08X} matches zlib.crc32", flush=True)

    async def send_init_packet(self, init_packet: bytes) -> None:
        await self.request(bytes([SET_PRN, 0x00, 0x00]))
        maximum, offset, crc = struct.unpack("<III", await self.request(bytes([SELECT, COMMAND_OBJECT])))
        print(f"command object: max size {maximum}, offset {offset}, CRC-32 0x{crc:08X}", flush=True)
        if len(init_packet) > maximum:
            raise ExchangeError(f"init packet of {len(init_packet)} bytes exceeds the maximum {maximum}")
        await self.request(bytes([CREATE, COMMAND_OBJECT]) + struct.pack("<I", len(init_packet)))
        await self.stream(init_packet)
        await self.checksum(len(init_packet), zlib.crc32(init_packet))
        await self.request(bytes([EXECUTE]))

    async def send_firmware(self, image: bytes) -> None:
        maximum, offset, crc = struct.unpack("<III", await self.request(bytes([SELECT, DATA_OBJECT])))
        print(f"data object: max size {maximum}, offset {offset}, CRC-32 0x{crc:08X}", flush=True)
        for start in range(0, len(image), maximum):
            chunk = image[start:start + maximum]
            await self.request(bytes([CREATE, DATA_OBJECT]) + struct.pack("<I", len(chunk)))
            await self.stream(chunk)
            await self.checksum(start + len(chunk), zlib.crc32(image[:start + len(chunk)]))
            await self.request(bytes([EXECUTE]))


async def find(address: str, arguments):
    device = await BleakScanner.find_device_by_address(
        address, timeout=arguments.timeout, bluez={"adapter": arguments.adapter})
    if device is None:
        raise ExchangeError(f"{address} not found on {arguments.adapter} within {arguments.timeout} s")
    print(f"found {device.address} '{device.name}'", flush=True)
    return device


async def enter_bootloader(arguments) -> None:
    """Tells the application to reset into its bootloader through the buttonless characteristic (indications)."""
    device = await find(arguments.address, arguments)
    indications: asyncio.Queue = asyncio.Queue()
    disconnected = asyncio.Event()
    async with BleakClient(
            device, disconnected_callback=lambda _: disconnected.set(), timeout=arguments.timeout,
            bluez={"adapter": arguments.adapter}) as client:
        await client.start_notify(BUTTONLESS, lambda _, data: indications.put_nowait(bytes(data)))
        request = bytes([ENTER_BOOTLOADER])
        print(f"> {hexdump(request)}", flush=True)
        await client.write_gatt_char(BUTTONLESS, request, response=True)
        try:
            response = await asyncio.wait_for(indications.get(), arguments.timeout)
            print(f"< {hexdump(response)}", flush=True)
            if response != bytes([BUTTONLESS_RESPONSE, ENTER_BOOTLOADER, SUCCESS]):
                raise ExchangeError(f"Enter Bootloader answered {hexdump(response)}")
            await asyncio.wait_for(disconnected.wait(), arguments.timeout)
        except asyncio.TimeoutError:
            raise ExchangeError("the application did not answer and reset") from None
    print("application reset into its bootloader", flush=True)


async def run(arguments) -> None:
    init_packet, image = application_files(arguments.package)
    if arguments.buttonless:
        await enter_bootloader(arguments)
    device = await find(arguments.bootloader_address or arguments.address, arguments)
    notifications: asyncio.Queue = asyncio.Queue()
    disconnected = asyncio.Event()
    async with BleakClient(
            device, disconnected_callback=lambda _: disconnected.set(), timeout=arguments.timeout,
            bluez={"adapter": arguments.adapter}) as client:
        await client.start_notify(
            CONTROL_POINT, lambda _, data: notifications.put_nowait(bytes(data)),
            bluez={"use_start_notify": not arguments.acquire_notify})
        print("notifications on: " + ("AcquireNotify" if arguments.acquire_notify else "StartNotify"), flush=True)
        dfu = SecureDFU(client, notifications, arguments.timeout)
        await dfu.send_init_packet(init_packet)
        if arguments.firmware:
            await dfu.send_firmware(image)
            # The bootloader activates the image and resets, dropping the link.
            try:
                await asyncio.wait_for(disconnected.wait(), arguments.timeout)
            except asyncio.TimeoutError:
                raise ExchangeError(f"the device did not disconnect within {arguments.timeout} s") from None
            print("device disconnected after activation", flush=True)
    print("exchange complete", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--address", required=True)
    parser.add_argument("--package", required=True, help="an nrfutil .zip with an application")
    parser.add_argument("--firmware", action="store_true", help="also send the image and wait for activation")
    parser.add_argument("--acquire-notify", action="store_true", help="AcquireNotify instead of StartNotify")
    parser.add_argument("--buttonless", action="store_true", help="first enter the bootloader from the application")
    parser.add_argument("--bootloader-address", help="where the bootloader advertises (default: --address)")
    parser.add_argument("--timeout", type=float, default=20.0)
    arguments = parser.parse_args()
    try:
        asyncio.run(run(arguments))
    except ExchangeError as error:
        print(f"bleak_dfu_client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
