import DFUSimulator
import Foundation
import NRFLoaderKit
import NRFLoaderSerial
import SerialSimulator
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A serial port as a library user's update target: the simulated SDK 15 serial bootloader serves a
/// pseudo-terminal on a thread of its own, and `FirmwareUpdate` updates it through `UpdateTarget.serial`.
@Suite(.serialized) struct SerialTargetTests {
    /// What the bootloader thread publishes: its port, then its end state.
    final class Served: Sendable {
        let port = Mutex<String?>(nil)
        let activations = Mutex<Int?>(nil)
        let transcript = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
    }

    /// Serves a Secure DFU bootloader (S132 7.2.0, as blinky-pca10040 needs) until it activated an image or the test
    /// says stop; returns once the port exists.
    static func serve() async throws -> Served {
        let served = Served()
        Thread {
            var options = SecureBootloaderOptions()
            options.softDeviceFWID = 0x0101
            options.hardwareVersion = 52
            let device = SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(options)))
            do {
                let bootloader = try PseudoTerminalBootloader(
                    bootloader: SerialBootloader(device: device), linkPath: nil, paceBaudRate: nil)
                served.port.withLock { $0 = bootloader.slavePath }
                _ = try bootloader.run { $0.activations > 0 || served.stop.load(ordering: .relaxed) }
                served.transcript.withLock { $0 = bootloader.state.transcript }
                served.activations.withLock { $0 = bootloader.state.activations }
            } catch {
                served.port.withLock { $0 = "" }
                served.activations.withLock { $0 = -1 }
            }
        }.start()
        _ = try await eventually { served.port.withLock { $0 } }
        return served
    }

    @Test("an update over a serial port reaches the bootloader, which activates the image")
    func update() async throws {
        let served = try await Self.serve()
        defer { served.stop.store(true, ordering: .relaxed) }
        let port = try #require(served.port.withLock { $0 })
        try #require(!port.isEmpty, "the pseudo-terminal could not be made")
        var events: [String] = []
        let summary = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: .serial(port))
            .run { events.append($0.json) }
        #expect(summary.bytesConfirmed == 604)
        #expect(summary.parts.map(\.name) == ["application"])
        #expect(try await eventually { served.activations.withLock { $0 } } == 1)
        // The transport's own requests went first: the device heard a ping, and the Get MTU request.
        let heard = served.transcript.withLock { $0 }.filter { $0.hasPrefix("> ") }
        #expect(heard.contains { $0.hasPrefix("> 09") })
        #expect(heard.contains("> 07"))
        #expect(events.first?.contains("\"begin\"") == true)
    }

    @Test("a port that does not exist is a missing input (66), as the command line documents, naming the port")
    func missingPort() async throws {
        let port = "/dev/nrfloader-test-no-such-port"
        await #expect {
            _ = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: .serial(port)).run()
        } throws: { error in
            guard let error = error as? UpdateError else { return false }
            return error.exitStatus == .noInput && error.message == "'\(port)': no such file" && !error.deviceWasReached
        }
    }
}
