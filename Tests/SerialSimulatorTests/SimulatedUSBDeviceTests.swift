import Foundation
import SerialLine
import SerialSimulator
import Testing

/// The simulated bootloader's sysfs entry, read back by the lister the serial transport uses.
@Suite struct SimulatedUSBDeviceTests {
    @Test("plugging writes what USBSerialPorts reads; unplugging removes the tty; a new serial number shows on replug")
    func plugAndUnplug() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("usb-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var device = SimulatedUSBDevice(
            sysfsRoot: root, vendorID: 0x1915, productID: 0x521F, product: "Open DFU Bootloader", serialNumber: "E1")
        try device.plug(as: "ttyACM3")
        let lister = USBSerialPorts(sysfsRoot: root, deviceRoot: "/dev")
        #expect(
            lister.all() == [
                USBSerialPort(
                    path: "/dev/ttyACM3", vendorID: 0x1915, productID: 0x521F, serialNumber: "E1",
                    product: "Open DFU Bootloader")
            ])
        device.unplug("ttyACM3")
        #expect(lister.all().isEmpty)
        device.replaceSerialNumber(with: "F2")
        try device.plug(as: "ttyACM4")
        #expect(lister.port(serialNumber: "F2")?.path == "/dev/ttyACM4")
        #expect(lister.port(serialNumber: "E1") == nil)
    }
}
