"""A minimal LE peripheral for the rig: registers one advertisement on an adapter of bluezoo_rig.py.

    .build-rig/venv/bin/python Tests/Rig/peripheral.py --adapter hci1 --name DfuTarg \
        --service-uuid 0000fe59-0000-1000-8000-00805f9b34fb

It stays until killed; bluezoo drops the advertisement when this process leaves the bus. The advertisement
sets Discoverable=true, as `nrfloader simulate` will, so that bluezoo reports it without the adapter's own
Discoverable flag.
"""

import asyncio
from argparse import ArgumentParser

import sdbus


class Advertisement(sdbus.DbusInterfaceCommonAsync, interface_name="org.bluez.LEAdvertisement1"):
    def __init__(self, name: str, uuids: list[str]):
        super().__init__()
        self.name = name
        self.uuids = uuids

    @sdbus.dbus_method_async(input_signature="", result_signature="")
    async def Release(self) -> None:
        return None

    @sdbus.dbus_property_async(property_signature="s")
    def Type(self) -> str:
        return "peripheral"

    @sdbus.dbus_property_async(property_signature="s")
    def LocalName(self) -> str:
        return self.name

    @sdbus.dbus_property_async(property_signature="as")
    def ServiceUUIDs(self) -> list[str]:
        return self.uuids

    @sdbus.dbus_property_async(property_signature="b")
    def Discoverable(self) -> bool:
        return True


class AdvertisingManager(sdbus.DbusInterfaceCommonAsync, interface_name="org.bluez.LEAdvertisingManager1"):
    @sdbus.dbus_method_async(input_signature="oa{sv}", result_signature="")
    async def RegisterAdvertisement(self, path: str, options: dict) -> None:
        raise NotImplementedError


async def run(adapter: str, name: str, uuids: list[str]) -> None:
    bus = sdbus.sd_bus_open_system()
    sdbus.set_default_bus(bus)
    advertisement = Advertisement(name, uuids)
    advertisement.export_to_dbus("/org/nrfloader/rig/advertisement0")
    manager = AdvertisingManager.new_proxy("org.bluez", f"/org/bluez/{adapter}")
    await manager.RegisterAdvertisement("/org/nrfloader/rig/advertisement0", {})
    print("advertising", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", required=True)
    parser.add_argument("--service-uuid", action="append", default=[])
    args = parser.parse_args()
    asyncio.run(run(args.adapter, args.name, args.service_uuid))


if __name__ == "__main__":
    main()
