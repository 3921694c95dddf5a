import BlueZ
import BlueZTransport
import DBus
import Foundation
import TestSupport
import Testing

/// `nrfloader scan` run as a user runs it, against the private bus and bluezoo.
@Suite("nrfloader scan", .tags(.integration))
struct ScanCommandTests {
    private static let heartRate = "0000180d-0000-1000-8000-00805f9b34fb"

    private func scan(_ arguments: [String], bus: String) -> ProcessResult {
        ProcessRunner().run(TestPaths.nrfloader, ["scan"] + arguments, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
    }

    @Test(
        "scan lists the device advertising Secure DFU and nothing else; --all lists the other one too",
        .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
    func findsDFUDevices() async throws {
        try await BlueZRig.with { rig in
            try await rig.addAdapter(2, address: "C0:DE:00:00:00:03")
            try rig.startPeripheral(adapter: "hci1", name: "DfuTarg", serviceUUIDs: [secureDFUService])
            try rig.startPeripheral(adapter: "hci2", name: "Other", serviceUUIDs: [Self.heartRate])
            let result = scan(["--adapter", "hci0", "--timeout", "4", "--json"], bus: rig.bus.address)
            #expect(result.status == 0, "\(result.stderrText)")
            let objects = try result.stdoutText.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.last?["event"] as? String == "result")
            let devices = objects.filter { $0["event"] as? String == "device" }
            #expect(devices.count == 1, "\(result.stdoutText)\nrig log:\n\(rig.log)")
            #expect(devices.first?["address"] as? String == "C0:DE:00:00:00:02")
            #expect(devices.first?["name"] as? String == "DfuTarg")
            #expect(devices.first?["dfu"] as? [String] == ["secure"])
            #expect(devices.first?["schema"] as? Int == 1)

            let everything = scan(["--adapter", "hci0", "--timeout", "4", "--all"], bus: rig.bus.address)
            #expect(everything.status == 0)
            #expect(everything.stdoutText.contains("C0:DE:00:00:00:02  DfuTarg"))
            #expect(everything.stdoutText.contains("C0:DE:00:00:00:03  Other"))
            #expect(everything.stdoutText.hasPrefix("ADDRESS"))

            let byName = scan(["--adapter", "hci0", "--timeout", "3", "--all", "--name", "^Oth"], bus: rig.bus.address)
            #expect(byName.stdoutText.contains("Other"))
            #expect(!byName.stdoutText.contains("DfuTarg"))
        }
    }

    @Test("scan without BlueZ on the bus exits 69 and says so", .enabled(if: PrivateBus.daemonPath != nil))
    func bluezAbsent() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let result = scan(["--timeout", "1"], bus: bus.address)
        #expect(result.status == 69)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderrText
                == "Error: bluetooth is not available: bluez (org.bluez) is not running on the system bus\n"
        )
    }
}
