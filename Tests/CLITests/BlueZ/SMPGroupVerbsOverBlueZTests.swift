import Foundation
import TestSupport
import Testing

/// The management-group verbs over Bluetooth: `nrfloader simulate --kind smp` on the bluezoo rig's hci1, each verb
/// run as a user runs it (`--target ADDRESS`), its output byte for byte the same as over the other transports; and a
/// file sent with `fs upload` and read back with `fs download`.
@Suite("management groups over BlueZ") struct SMPGroupVerbsOverBlueZTests {
    static let peripheral = "C0:DE:00:00:00:02"

    private static func run(_ arguments: [String], rig: BlueZRig) -> ProcessResult {
        ProcessRunner().run(
            TestPaths.nrfloader, arguments + ["--adapter", "hci0", "--target", peripheral],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": rig.bus.address])
    }

    @Test("each verb answers as over sim:smp, a serial port and UDP; fs upload and download round-trip 100 KiB")
    func verbsOverBlueZ() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try await BlueZRig.with { rig in
            let simulator = try await rig.startSimulate(["--adapter", "hci1", "--kind", "smp", "--flash", "instant"])
            for (verb, expected) in SMPGroupVerbsTests.answers where verb != ["storage-erase"] {
                let result = Self.run(verb, rig: rig)
                #expect(result.status == 0, "\(verb): \(result.stderrText)\n\(simulator.log)")
                #expect(result.stdoutText == expected, "\(verb)")
            }
            var random = SeededGenerator(seed: 100)
            let file = (0..<102_400).map { _ in UInt8.random(in: 0...255, using: &random) }
            let sent = folder.file("sent.bin")
            let back = folder.file("back.bin")
            try Data(file).write(to: URL(fileURLWithPath: sent))
            var result = Self.run(["fs", "upload", "-q", sent, "/lfs/sent.bin"], rig: rig)
            #expect(result.status == 0, "fs upload: \(result.stderrText)")
            result = Self.run(["fs", "download", "-q", "/lfs/sent.bin", back], rig: rig)
            #expect(result.status == 0, "fs download: \(result.stderrText)")
            #expect(FileManager.default.contents(atPath: back).map { [UInt8]($0) } == file)
        }
    }
}
