import Foundation
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator
import TestSupport
import Testing

/// A simulated device served on a pseudo-terminal and updated over it, as a program outside the package does both:
/// only public API.
@Suite("SerialDeviceSimulator, as a program uses it", .serialized)
struct SerialDeviceSimulatorTests {
    /// Serves `simulator` until `body` returns, then cancels it (or, with `limit`, until it stops by itself after
    /// that many activations) and returns its report with `body`'s result.
    private func serving<T: Sendable>(
        _ simulator: SerialDeviceSimulator, stoppingAfterActivations limit: Int? = nil,
        _ body: @Sendable () async throws -> T
    ) async throws -> (T, SerialDeviceSimulator.Report) {
        let (ready, readiness) = AsyncStream<String>.makeStream()
        let served = Task { try await simulator.run(stoppingAfterActivations: limit) { readiness.yield($0) } }
        for await devicePath in ready {
            #expect(devicePath.hasPrefix("/dev/pts/"))
            break
        }
        let result: T
        do {
            result = try await body()
        } catch {
            served.cancel()
            _ = try? await served.value
            throw error
        }
        if limit == nil { served.cancel() }
        return (result, try await served.value)
    }

    @Test("an SMP device on a pseudo-terminal takes an MCUboot image from FirmwareUpdate over .serial")
    func smpOverSerial() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = TestPaths.repositoryRoot.appendingPathComponent("Tests/Data/mcuboot/ed25519.bin").path
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        let port = directory.file("ttySMP")
        let (summary, report) = try await serving(
            SerialDeviceSimulator(serving: SimulatedDeviceProfile(.smp), at: port)
        ) {
            try await FirmwareUpdate(firmware: try Firmware(input), target: .serial(port)).run()
        }
        #expect(summary.bytesConfirmed == image.count)
        #expect(report.activations == 1)
        #expect(report.images.map(\.name) == ["slot0", "slot1"])
        #expect(report.images.first?.bytes.prefix(image.count) == ArraySlice(image))
        #expect(report.transcript.isEmpty == false)
        // The symlink is gone once the simulator stops.
        #expect(!FileManager.default.fileExists(atPath: port))
    }

    @Test("a Secure DFU serial bootloader takes a catalog application and stops after its activation")
    func secureOverSerial() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var device = SimulatedDeviceProfile(.secure)
        // S132 7.2.0, which the catalog's nRF52832 blinky requires.
        device.softDeviceID = 0x0101
        device.flash = .instant
        let port = directory.file("ttyDFU")
        // The bootloader activates the application once it has answered the last Execute: the run ends there.
        let (summary, report) = try await serving(
            SerialDeviceSimulator(serving: device, at: port), stoppingAfterActivations: 1
        ) {
            try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: .serial(port)).run()
        }
        #expect(summary.bytesConfirmed == 604)
        #expect(report.activations == 1)
        #expect(report.portVanished == false)
        #expect(report.images.map(\.name) == ["application"])
        #expect(report.images.first?.bytes.count == 604)
        #expect(report.hostWireBytes > 604)
        #expect(report.firstByteToLastActivation != nil)
    }

    @Test(
        "options the device does not take are usage errors",
        arguments: [
            (SimulatedDeviceKind.buttonless, 131), (.secure, 10), (.legacyV1, 131),
        ] as [(SimulatedDeviceKind, Int)])
    func refusedOptions(kind: SimulatedDeviceKind, mtu: Int) async throws {
        var simulator = SerialDeviceSimulator(serving: SimulatedDeviceProfile(kind), at: "/nonexistent/tty")
        simulator.mtu = mtu
        let error = await #expect(throws: UpdateError.self) { try await simulator.run() }
        #expect(error?.exitStatus == .usage)
    }

    @Test("a fault that does not parse is a usage error naming it, before the port is made")
    func badFault() async throws {
        var device = SimulatedDeviceProfile(.secure)
        device.faults = ["explode@3"]
        let simulator = SerialDeviceSimulator(serving: device, at: "/nonexistent/tty")
        let error = await #expect(throws: UpdateError.self) { try await simulator.run() }
        #expect(error?.exitStatus == .usage)
        #expect(error?.message.contains("explode") == true)
    }
}
