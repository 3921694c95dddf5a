import Foundation
import TestSupport
import Testing

/// `nrfloader serve` on the rig: its live scan lists a device `nrfloader simulate` advertises through bluezoo, and a
/// job started through the API updates that device over BlueZ.
@Suite("serve over BlueZ", .tags(.integration), .enabled(if: BlueZRig.isAvailable, BlueZRig.unavailableReason))
struct ServeOverBlueZTests {
    static let root = TestPaths.repositoryRoot.path
    static let packages = root + "/Tests/Data/packages"
    static let privateKey = packages + "/nrfutil-test-key.pem"
    static let publicKey = packages + "/nrfutil-test-key.pub.pem"
    static let peripheral = "C0:DE:00:00:00:02"

    @Test("the live scan lists the device, and a job updates it over BlueZ")
    func scanAndUpdate() async throws {
        try await BlueZRig.with { rig in
            let images = try TemporaryDirectory()
            let simulator = try await rig.startSimulate(
                [
                    "--adapter", "hci1", "--save-images", images.path, "--kind", "secure", "--sd-id", "0x0101", "--key",
                    Self.publicKey,
                ])
            let server = try await ServeProcess.start(
                ["--no-sim", "--adapter", "hci0", "--key", Self.privateKey],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
            var listing = ""
            for _ in 0..<300 {
                listing = try await server.get("/api/devices").text
                if listing.contains("\"id\":\"\(Self.peripheral)\"") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(listing.contains("\"bluetooth\":{\"message\":\"hci0\",\"state\":\"scanning\"}"), "\(listing)")
            #expect(
                listing.contains(
                    "{\"id\":\"\(Self.peripheral)\",\"label\":\"\(Self.peripheral)\",\"name\":\"DfuTarg\","
                        + "\"protocols\":[\"dfu\"],\"rssi\":"), "\(listing)")
            let started = try await server.post(
                "/api/jobs", body: Data(#"{"firmware":"blinky-pca10040","devices":["\#(Self.peripheral)"]}"#.utf8),
                type: "application/json")
            #expect(started.status == 202, "\(started.text)")
            let result = try await server.get("/api/jobs/1/result")
            #expect(result.status == 200, "\(result.text)\nsimulate:\n\(simulator.log)")
            #expect(result.text.contains("\"event\":\"result\""))
            let saved = try images.read("application.bin")
            let blinky = try Data(
                contentsOf: URL(fileURLWithPath: Self.root + "/Resources/firmware/blinky-pca10040.bin"))
            #expect(saved == [UInt8](blinky))
            #expect(server.stop().status == 130)
        }
    }
}
