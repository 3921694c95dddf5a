"""Starts bluezoo 1.0.2 (the BlueZ stand-in of testrig.md, rung 1) with its known defects patched.

Run it with the rig's venv interpreter, on the bus named by DBUS_SYSTEM_BUS_ADDRESS:

    .build-rig/venv/bin/python Tests/Rig/bluezoo_rig.py --auto-enable \
        -a 00:11:22:33:44:01 -a C0:DE:00:00:00:02 --scan-interval 1

Arguments are bluezoo's own, plus `--quirk NAME` (repeatable). The patches make bluezoo behave like real BlueZ
where testrig.md lists a defect; each one names the defect by its number there. They touch bluezoo internals, which
is why Tests/Rig/requirements.txt pins the versions.

A quirk makes the rig behave as bluetoothd 5.66 on btvirt was seen to (testrig.md, "Causes already traced on
Rung 2"), where that differs from what a central may hope for:

- silent-connected: no Connected=true signal for the central's side of a connection (ServicesResolved still comes).
- unsignalled-services-resolved: ServicesResolved (and Connected) become true on the central's side without any
  signal, as if they had changed before the client subscribed.
- one-report-per-scan: a scanning adapter gets one advertising report per advertiser per StartDiscovery, the report
  of every odd-numbered start is lost, and a device BlueZ already has is not announced again (btvirt's RSSI is
  constant, so real BlueZ sends no RSSI change).
- rssi-unavailable: every device reports RSSI 127 (HCI's "not available").
- untyped-server-writes: a GATT server application's WriteValue gets no "type" option (gatt-database.c never sends
  one).
- removed-while-connecting: the first Connect to each device removes the device (InterfacesRemoved) and fails; the
  next scan finds it again.
- acquire-notify-trap: a central's AcquireNotify is never answered and leaves its characteristic held, as bluetoothd
  before 5.84 does when the descriptor write behind it fails; StartNotify and AcquireNotify on that characteristic are
  then refused with NotPermitted "Notify acquired".
- notify-acquired: that held state from the start (an earlier session left it): every StartNotify and AcquireNotify
  of a central is refused with NotPermitted "Notify acquired".
"""

import asyncio
import select
import sys

import sdbus

import bluezoo.adapter
import bluezoo.bluezoo
import bluezoo.device
from bluezoo.utils import setup_default_bus
from bluezoo.exceptions import DBusBluezFailedError, DBusBluezNotPermittedError, DBusBluezNotReadyError
from bluezoo.gatt import characteristic as gatt_characteristic
from bluezoo.gatt.manager import GattManager
from bluezoo.log import logger

Adapter = bluezoo.adapter.Adapter
Device = bluezoo.device.Device


def _take_quirks(argv: list) -> set:
    """Removes `--quirk NAME` pairs from argv (bluezoo's parser does not know them) and returns the names."""
    quirks = set()
    while "--quirk" in argv:
        index = argv.index("--quirk")
        quirks.add(argv[index + 1])
        del argv[index:index + 2]
    return quirks


QUIRKS = _take_quirks(sys.argv)


async def _set_central_side(device, name: str, value: bool) -> None:
    """Sets Connected or ServicesResolved of the central's view of a device, silently where a quirk says so."""
    silent = "unsignalled-services-resolved" in QUIRKS or (name == "Connected" and "silent-connected" in QUIRKS)
    attribute = "connected" if name == "Connected" else "services_resolved"
    if getattr(device, attribute) == value:
        return
    if silent and value:
        setattr(device, attribute, value)
    else:
        await getattr(device, name).set_async(value)


def _device_path(adapter, address: str) -> str:
    return f"{adapter.get_object_path()}/dev_{address.replace(':', '_')}"


def _end_gatt_sessions(device) -> None:
    """Real BlueZ ends a link's notification sessions and acquired sockets with the link (defects 4 and 5: bluezoo
    keeps them, so a StartNotify after a reconnect delivered every value twice)."""
    for link in device.services.values():
        subscription = getattr(link, "client_props_changed_subscription", None)
        if subscription is not None:
            subscription.unsubscribe()
        for name in ("f_read", "f_write"):
            handle = getattr(link, name, None)
            if handle is None:
                continue
            if name == "f_read":
                try:
                    asyncio.get_running_loop().remove_reader(handle.fileno())
                except (ValueError, OSError):
                    pass
            handle.close()
            setattr(link, name, None)


async def _set_link_down(device) -> None:
    """Real BlueZ order on a disconnect: ServicesResolved=false, then Connected=false."""
    _end_gatt_sessions(device)
    if device.services_resolved:
        await device.ServicesResolved.set_async(False)
    if device.connected:
        await device.Connected.set_async(False)


# Defect 2 (a known device is never announced again) and defect 6 (SetDiscoveryFilter(UUIDs) ignored
# for LE advertisements). Real BlueZ reports a device again with an RSSI update on every advertising
# report, and reports only LE devices that advertise one of the filter's UUIDs.
_original_add_device = Adapter.add_device


async def _add_device(self, device):
    is_scan_result = device.is_le or device.is_br_edr
    if is_scan_result and device.is_le and self.scan_filter_uuids:
        wanted = {str(uuid) for uuid in self.scan_filter_uuids}
        if not wanted.intersection(str(uuid) for uuid in device.uuids):
            return
    device.attach_to_adapter(self)
    existing = self.devices.get(device.get_object_path())
    if is_scan_result and "rssi-unavailable" in QUIRKS:
        device.rssi = 127
        if existing is not None:
            existing.rssi = 127
    await _original_add_device(self, device)
    if is_scan_result and existing is not None and "one-report-per-scan" not in QUIRKS:
        existing.properties_changed.emit(("org.bluez.Device1", {"RSSI": ("n", existing.rssi)}, []))


Adapter.add_device = _add_device


# Real BlueZ refuses discovery on an adapter that is off (org.bluez.Error.NotReady); bluezoo starts it.
# sdbus copied the method object at class creation, so swap the function that copy calls.
_start_discovery_member = Adapter.__dict__["StartDiscovery"]
_original_start_discovery = _start_discovery_member.original_method


async def _start_discovery(self):
    if not self.powered:
        raise DBusBluezNotReadyError("Resource Not Ready")
    return await _original_start_discovery(self)


_start_discovery_member.original_method = _start_discovery


# Defect 1 (a second Connect() re-exports the kept GATT objects and fails with EEXIST). Real BlueZ keeps
# the objects (GATT cache) and re-binds them; if the server's database changed, the old objects go and
# the new ones come.
_original_connect = Device.connect


async def _connect(self, uuid=None):
    server_path = _device_path(self.peer_adapter, self.adapter.address)
    if self.services:
        served = {id(obj) for app in self.peer_adapter.gatt_apps.values() for obj in app.objects.values()}
        kept = {id(link.client) for link in self.services.values()}
        if served == kept:
            await self.peer_adapter.add_device(self.peer)
            await _set_link_up(self, self.peer_adapter.devices.get(server_path))
            return
        for link in list(self.services.values()):
            self.peer_adapter.mock.remove_object(link)
        self.services.clear()
    # bluezoo marks a fresh peer object connected, which is not the exported one when the peripheral already
    # knew this central (a second connection): the peripheral would never see it. Real BlueZ reports every
    # connection on the object it exports, before the central can send its first request.
    server_view = self.peer_adapter.devices.get(server_path)
    if server_view is not None and not server_view.connected:
        await server_view.Connected.set_async(True)
    if "removed-while-connecting" in QUIRKS and self.get_object_path() not in _removed_once:
        _removed_once.add(self.get_object_path())
        await self.adapter.del_device(self)
        raise DBusBluezFailedError("Device removed while connecting (rig quirk)")
    if QUIRKS & {"silent-connected", "unsignalled-services-resolved"}:
        await _connect_quietly(self)
    else:
        await _original_connect(self, uuid)
    await _set_link_up(self, self.peer_adapter.devices.get(server_path))


_removed_once = set()


async def _connect_quietly(self) -> None:
    """bluezoo's own first connection (Device.connect), with the central's side set by _set_central_side."""
    from bluezoo.gatt import (GattCharacteristicClient, GattCharacteristicClientLink, GattDescriptorClient,
                              GattDescriptorClientLink, GattServiceClient, GattServiceClientLink)
    await self.peer_adapter.add_device(self.peer)
    await self.peer.Connected.set_async(True)
    await _set_central_side(self, "Connected", True)
    for app in self.peer_adapter.gatt_apps.values():
        links = {}
        for obj_path, obj in sorted(app.objects.items(), key=lambda x: x[0]):
            if isinstance(obj, GattServiceClient):
                link = GattServiceClientLink(obj, self)
            if isinstance(obj, GattCharacteristicClient):
                link = GattCharacteristicClientLink(obj, links[obj.Service.get()])
            if isinstance(obj, GattDescriptorClient):
                link = GattDescriptorClientLink(obj, links[obj.Characteristic.get()])
            self.peer_adapter.mock.export_object(link.get_object_path(), link)
            self.services[link.get_object_path()] = link
            links[obj_path] = link
    await self.peer.ServicesResolved.set_async(True)
    await _set_central_side(self, "ServicesResolved", True)


async def _set_link_up(device, server_view) -> None:
    if server_view is not None and not server_view.connected:
        await server_view.Connected.set_async(True)
    await _set_central_side(device, "Connected", True)
    if server_view is not None and not server_view.services_resolved:
        await server_view.ServicesResolved.set_async(True)
    await _set_central_side(device, "ServicesResolved", True)


Device.connect = _connect


# Not a testrig.md defect: bluezoo reads a server application's AcquireNotify socket in one callback and takes D-Bus
# calls in others, and forwards each value it reads as a background task, so a notification a server sent just before
# its Disconnect could reach the central after Connected=false (a Secure DFU bootloader's Execute response, sent as
# it resets: about one fleet upload in five under load). Real BlueZ delivers a link's notifications in order before
# the link goes down. Keep the forwarding tasks, and let a disconnect send what is already written first.
_forwarding = set()


def _forward_notification(coroutine):
    task = asyncio.create_task(coroutine)
    _forwarding.add(task)
    task.add_done_callback(_forwarding.discard)


gatt_characteristic.create_background_task = _forward_notification


async def _deliver_written_notifications(device) -> None:
    for link in list(device.services.values()):
        handle = getattr(link, "f_read", None)
        while handle is not None and select.select([handle], [], [], 0)[0]:
            data = handle.read(link.mtu)
            if not data:
                break
            await link.Value.set_async(data)
            if "indicate" in link.client.Flags.get():
                handle.write(b"\x01")
    pending = [task for task in _forwarding if task is not asyncio.current_task()]
    if pending:
        await asyncio.wait(pending, timeout=2)


# Defect 3 (a disconnect initiated by the peripheral never reaches the central). Each side of a link is
# a Device object on its own adapter; a disconnect on either one takes both down.
async def _disconnect(self, uuid=None):
    self.connecting_task.cancel()
    logger.info(f"Disconnecting {self}")
    other_side = self.peer_adapter.devices.get(_device_path(self.peer_adapter, self.adapter.address))
    for device in (self, other_side):
        if device is not None:
            await _deliver_written_notifications(device)
    for device in (self, other_side):
        if device is not None:
            await _set_link_down(device)


Device.disconnect = _disconnect


# Defect 3, second half: a GATT server application that goes away (its process died, or it
# unregistered) drops every link to its adapter, as a peripheral that resets does.
_del_app_name = "_GattManager__del_gatt_application"
_original_del_app = getattr(GattManager, _del_app_name)


async def _del_gatt_application(self, app):
    await _original_del_app(self, app)
    for adapter in self.mock.adapters.values():
        for device in list(adapter.devices.values()):
            if device.peer_adapter is self and device.connected:
                await device.disconnect()


setattr(GattManager, _del_app_name, _del_gatt_application)


# RemoveDevice leaves the device's GATT objects exported in bluezoo, so connecting to the device once it is found
# again fails with EEXIST (defect 1 by another road). Real BlueZ removes them with the device.
_original_del_device = Adapter.del_device


async def _del_device(self, device):
    await _original_del_device(self, device)
    for link in list(device.services.values()):
        self.mock.remove_object(link)
    device.services.clear()


Adapter.del_device = _del_device


# Quirk one-report-per-scan: btvirt (BlueZ 5.66) sends one report per advertiser when scanning starts, and kernel
# 6.1 may drop it. The scan task runs once (or not at all, on odd-numbered starts) instead of every interval.
_original_create_discovering_task = bluezoo.bluezoo.BluezMockService.create_discovering_task


def _create_discovering_task(self, id):
    task = _original_create_discovering_task(self, id)
    if "one-report-per-scan" in QUIRKS:
        adapter = self.adapters[id]
        adapter.rig_scan_starts = getattr(adapter, "rig_scan_starts", 0) + 1
        if adapter.rig_scan_starts % 2 == 1:
            task.cancel()
        else:
            # The first round runs at once; the next would come a scan interval later.
            asyncio.get_running_loop().call_later(min(0.5, self.scan_interval / 2), task.cancel)
    return task


bluezoo.bluezoo.BluezMockService.create_discovering_task = _create_discovering_task


# Quirk untyped-server-writes: bluetoothd's gatt-database.c passes "device", "link", "mtu", "offset" and
# "prepare-authorize" to a server application's WriteValue, never "type".
_link_class = gatt_characteristic.GattCharacteristicClientLink
_prepare_name = "_GattCharacteristicClientLink__prepare_options"
_original_prepare = getattr(_link_class, _prepare_name)


def _prepare_options(self, options):
    prepared = _original_prepare(self, options)
    if "untyped-server-writes" in QUIRKS:
        prepared.pop("type", None)
    return prepared


setattr(_link_class, _prepare_name, _prepare_options)


# Quirks acquire-notify-trap and notify-acquired: bluetoothd before 5.84 (gatt-client.c,
# characteristic_acquire_notify) sets the characteristic's notify_io before the descriptor write completes; when the
# write fails, register_notify_io_cb frees the client without answering and leaves notify_io set, so StartNotify and
# AcquireNotify answer NotPermitted "Notify acquired" until bluetoothd restarts (BlueZ 476ae809a, in 5.84). The
# central-side methods are sdbus overrides: wrap the functions they dispatch to.
_held_notifications = set()


def _refuse_if_held(link) -> None:
    if "notify-acquired" in QUIRKS or link.get_object_path() in _held_notifications:
        raise DBusBluezNotPermittedError("Notify acquired")


def _wrap_acquire_notify(original):
    async def acquire_notify(self, options):
        _refuse_if_held(self)
        if "acquire-notify-trap" in QUIRKS:
            _held_notifications.add(self.get_object_path())
            await asyncio.get_running_loop().create_future()  # never answered
        return await original(self, options)

    return acquire_notify


def _wrap_start_notify(original):
    async def start_notify(self):
        _refuse_if_held(self)
        return await original(self)

    return start_notify


for _name, _wrap in (("AcquireNotify", _wrap_acquire_notify), ("StartNotify", _wrap_start_notify)):
    _method = _link_class.__dict__[_name]
    _method.original_method = _wrap(_method.original_method)


# Not a testrig.md defect: bluezoo forwards a central's ReadValue/WriteValue/AcquireWrite to the server application
# even when the central's device is no longer connected, so a write the central sent before it learnt of a dropped
# link reaches the peripheral after the drop, as if from a new link. Real BlueZ refuses it (gatt-client.c:
# "Not connected"); the ATT bearer is gone.
def _wrap_connected_only(original):
    async def method(self, *args):
        if not self.service.device.connected:
            raise DBusBluezFailedError("Not connected")
        return await original(self, *args)

    return method


for _name in ("ReadValue", "WriteValue", "AcquireWrite"):
    _method = _link_class.__dict__[_name]
    _method.original_method = _wrap_connected_only(_method.original_method)


# Not a testrig.md defect, but a race for every client: bluezoo 1.0.2 owns org.bluez before it exports its
# adapters, so a client that waits for the name can still see no adapter. Real bluetoothd registers its
# objects first. Own the name last.
async def _startup(bus="system", adapters=[], auto_enable=False, scan_interval=10):
    connection = setup_default_bus(bus)
    service = bluezoo.bluezoo.BluezMockService(auto_enable, scan_interval)
    for index, address in enumerate(adapters):
        await service.add_adapter(index, address)
    await connection.request_name_async("org.bluez", 0)
    # Kept for bluezoo's own shutdown(), and so that the service is not garbage collected.
    _original_startup.bus = connection
    _original_startup.service = service


_original_startup = bluezoo.bluezoo.startup
bluezoo.bluezoo.startup = _startup


if __name__ == "__main__":
    sys.exit(bluezoo.bluezoo.main())
