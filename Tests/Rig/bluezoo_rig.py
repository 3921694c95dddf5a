"""Starts bluezoo 1.0.2 (the BlueZ stand-in of testrig.md, rung 1) with its known defects patched.

Run it with the rig's venv interpreter, on the bus named by DBUS_SYSTEM_BUS_ADDRESS:

    .build-rig/venv/bin/python Tests/Rig/bluezoo_rig.py --auto-enable \
        -a 00:11:22:33:44:01 -a C0:DE:00:00:00:02 --scan-interval 1

Arguments are bluezoo's own. The patches make bluezoo behave like real BlueZ where testrig.md lists a
defect; each one names the defect by its number there. They touch bluezoo internals, which is why
Tests/Rig/requirements.txt pins the versions.
"""

import asyncio
import sys

import bluezoo.adapter
import bluezoo.bluezoo
import bluezoo.device
from bluezoo.utils import setup_default_bus
from bluezoo.exceptions import DBusBluezNotReadyError
from bluezoo.gatt.manager import GattManager
from bluezoo.log import logger

Adapter = bluezoo.adapter.Adapter
Device = bluezoo.device.Device


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
    await _original_add_device(self, device)
    if is_scan_result and existing is not None:
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
    await _original_connect(self, uuid)
    await _set_link_up(self, self.peer_adapter.devices.get(server_path))


async def _set_link_up(device, server_view) -> None:
    for side in (server_view, device):
        if side is not None and not side.connected:
            await side.Connected.set_async(True)
    for side in (server_view, device):
        if side is not None and not side.services_resolved:
            await side.ServicesResolved.set_async(True)


Device.connect = _connect


# Defect 3 (a disconnect initiated by the peripheral never reaches the central). Each side of a link is
# a Device object on its own adapter; a disconnect on either one takes both down.
async def _disconnect(self, uuid=None):
    self.connecting_task.cancel()
    logger.info(f"Disconnecting {self}")
    other_side = self.peer_adapter.devices.get(_device_path(self.peer_adapter, self.adapter.address))
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
