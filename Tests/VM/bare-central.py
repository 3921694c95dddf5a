#!/usr/bin/env python3
"""A bare Secure DFU central: the reference the VM tier measures nrfloader's BlueZ throughput against.

It connects to a Secure DFU target through bluetoothd (python3-dbus, no main loop), takes the packet
characteristic through AcquireWrite and the control point's notifications through AcquireNotify, and
sends an init packet and a firmware image with the exchanges nrfloader uses: Set PRN, then per object
Select, Create, the packets (waiting for each packet receipt), Calculate Checksum, Execute. Before a
control-point request that depends on streamed packets it waits until the socket's send queue is empty.
Nothing else: no retries, no resume. It prints one JSON object: bytes, seconds (Set PRN to the last
Execute response), bytes_per_second. Exit 1 with a message on stderr on any failure.

Usage: bare-central.py --adapter hci0 --target ADDRESS --dat FILE --bin FILE [--prn N] [--timeout S]
       [--packet-size N (default 244, at most the MTU AcquireWrite reports less 3)]
"""

import argparse
import fcntl
import json
import os
import select
import struct
import sys
import termios
import time
import zlib

import dbus

BLUEZ = "org.bluez"
CONTROL_POINT = "8ec90001-f315-4f60-9fb8-838830daea50"
PACKET = "8ec90002-f315-4f60-9fb8-838830daea50"
PROPERTIES = "org.freedesktop.DBus.Properties"


class Failure(Exception):
    pass


def managed_objects(bus):
    manager = dbus.Interface(bus.get_object(BLUEZ, "/"), "org.freedesktop.DBus.ObjectManager")
    return manager.GetManagedObjects()


def find_device(bus, adapter_path, address):
    for path, interfaces in managed_objects(bus).items():
        device = interfaces.get("org.bluez.Device1")
        if device and device.get("Adapter") == adapter_path and str(device.get("Address")).upper() == address:
            return path
    return None


def connect(bus, adapter_path, address, deadline):
    """Finds the device (restarting discovery every 5 s: btvirt 5.66 advertises once per scan start)."""
    adapter = dbus.Interface(bus.get_object(BLUEZ, adapter_path), "org.bluez.Adapter1")
    path = find_device(bus, adapter_path, address)
    restarted = 0.0
    while path is None:
        if time.monotonic() > deadline:
            raise Failure(f"{address} not found on {adapter_path}")
        if time.monotonic() - restarted > 5:
            try:
                adapter.StopDiscovery()
            except dbus.DBusException:
                pass
            adapter.SetDiscoveryFilter({"Transport": "le"})
            adapter.StartDiscovery()
            restarted = time.monotonic()
        time.sleep(0.1)
        path = find_device(bus, adapter_path, address)
    try:
        adapter.StopDiscovery()
    except dbus.DBusException:
        pass
    device = bus.get_object(BLUEZ, path)
    dbus.Interface(device, "org.bluez.Device1").Connect(timeout=60)
    properties = dbus.Interface(device, PROPERTIES)
    while not properties.Get("org.bluez.Device1", "ServicesResolved"):
        if time.monotonic() > deadline:
            raise Failure(f"services of {address} not resolved")
        time.sleep(0.05)
    return path


def characteristic(bus, device_path, uuid):
    for path, interfaces in managed_objects(bus).items():
        gatt = interfaces.get("org.bluez.GattCharacteristic1")
        if gatt and path.startswith(device_path + "/") and str(gatt["UUID"]).lower() == uuid:
            return bus.get_object(BLUEZ, path)
    raise Failure(f"no characteristic {uuid} under {device_path}")


class Session:
    def __init__(self, bus, device_path, prn, timeout, packet_size):
        self.timeout = timeout
        self.prn = prn
        control = characteristic(bus, device_path, CONTROL_POINT)
        packet = characteristic(bus, device_path, PACKET)
        self.control = dbus.Interface(control, "org.bluez.GattCharacteristic1")
        notify_fd, _ = self.control.AcquireNotify(dbus.Dictionary({}, signature="sv"))
        self.notify_fd = notify_fd.take()
        write_fd, mtu = dbus.Interface(packet, "org.bluez.GattCharacteristic1").AcquireWrite(
            dbus.Dictionary({}, signature="sv")
        )
        self.write_fd = write_fd.take()
        # Nordic's Secure DFU bootloaders negotiate at most a 247-byte ATT MTU (244-byte packets), whatever
        # the link allows; `simulate` enforces that too.
        self.chunk = min(int(mtu) - 3, packet_size)

    def notification(self):
        ready, _, _ = select.select([self.notify_fd], [], [], self.timeout)
        if not ready:
            raise Failure("no notification from the control point in time")
        data = os.read(self.notify_fd, 1024)
        if not data:
            raise Failure("the control point's notification socket closed")
        return data

    def drain(self):
        """Waits until the packet socket has handed every packet to the kernel's ATT layer."""
        deadline = time.monotonic() + self.timeout
        buffer = bytearray(4)
        while True:
            fcntl.ioctl(self.write_fd, termios.TIOCOUTQ, buffer)
            if struct.unpack("i", buffer)[0] == 0:
                return
            if time.monotonic() > deadline:
                raise Failure("the packet socket did not drain")
            time.sleep(0.001)

    def request(self, payload):
        self.control.WriteValue(dbus.Array(payload, signature="y"), {"type": dbus.String("request")})
        response = self.notification()
        if len(response) < 3 or response[0] != 0x60 or response[1] != payload[0]:
            raise Failure(f"unexpected response {response.hex()} to {bytes(payload).hex()}")
        if response[2] != 0x01:
            raise Failure(f"request {bytes(payload).hex()} refused: {response.hex()}")
        return response[3:]

    def send_object(self, kind, data, offset, crc):
        """Sends one object of `kind` (1 command, 2 data) holding `data` at `offset`."""
        self.request([0x01, kind] + list(struct.pack("<I", len(data))))
        sent = 0
        for index, start in enumerate(range(0, len(data), self.chunk)):
            piece = data[start : start + self.chunk]
            os.write(self.write_fd, piece)
            sent += len(piece)
            crc = zlib.crc32(piece, crc)
            if self.prn and (index + 1) % self.prn == 0 and start + self.chunk < len(data):
                receipt = self.notification()
                if receipt[:3] != b"\x60\x03\x01":
                    raise Failure(f"unexpected packet receipt {receipt.hex()}")
        self.drain()
        got_offset, got_crc = struct.unpack("<II", self.request([0x03])[:8])
        if got_offset != offset + sent or got_crc != crc:
            raise Failure(f"checksum mismatch: device {got_offset}/{got_crc:08x}, sent {offset + sent}/{crc:08x}")
        self.request([0x04])
        return crc

    def update(self, init_packet, image):
        started = time.monotonic()
        self.request([0x02] + list(struct.pack("<H", self.prn)))
        self.request([0x06, 0x01])
        self.send_object(1, init_packet, 0, 0)
        max_size = struct.unpack("<I", self.request([0x06, 0x02])[:4])[0]
        crc = 0
        for offset in range(0, len(image), max_size):
            crc = self.send_object(2, image[offset : offset + max_size], offset, crc)
        return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--target", required=True)
    parser.add_argument("--dat", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--prn", type=int, default=12)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--packet-size", type=int, default=244)
    arguments = parser.parse_args()
    with open(arguments.dat, "rb") as file:
        init_packet = file.read()
    with open(arguments.bin, "rb") as file:
        image = file.read()
    bus = dbus.SystemBus()
    adapter_path = "/org/bluez/" + arguments.adapter
    try:
        device_path = connect(bus, adapter_path, arguments.target.upper(), time.monotonic() + 90)
        session = Session(bus, device_path, arguments.prn, arguments.timeout, arguments.packet_size)
        seconds = session.update(init_packet, image)
        try:
            dbus.Interface(bus.get_object(BLUEZ, device_path), "org.bluez.Device1").Disconnect()
        except dbus.DBusException:
            pass
    except (Failure, dbus.DBusException, OSError) as error:
        print(f"bare-central: {error}", file=sys.stderr)
        return 1
    print(
        json.dumps(
            {"bytes": len(image), "bytes_per_second": round(len(image) / seconds), "seconds": round(seconds, 3)},
            sort_keys=True,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
