import NRFLoaderKit
import NRFLoaderSimulator
import Testing

/// The simulated devices as a program outside the package uses them: public API only.
@Suite struct SimulatedTargetTests {
    static var fast: SimulatedDeviceOptions {
        var options = SimulatedDeviceOptions()
        options.speed = 0
        return options
    }

    @Test("each kind has the --target name the command line takes")
    func targetNames() {
        #expect(
            SimulatedDeviceKind.allCases.map(\.targetName) == [
                "sim", "sim:buttonless", "sim:legacy", "sim:legacy-v1", "sim:smp",
            ])
    }

    @Test("a fault text: malformed for any kind, unsupported only where the device cannot simulate it")
    func faultProblems() {
        guard case .malformed? = SimulatedDeviceKind.secure.faultProblem("explode@1") else {
            Issue.record("explode@1 is no fault")
            return
        }
        #expect(SimulatedDeviceKind.secure.faultProblem("corrupt-packet@1") == nil)
        #expect(SimulatedDeviceKind.smp.faultProblem("drop-notification@1") == nil)
        guard case .unsupported(let reason)? = SimulatedDeviceKind.smp.faultProblem("corrupt-packet@1") else {
            Issue.record("sim:smp does not corrupt packets")
            return
        }
        #expect(reason.hasPrefix("is not simulated for sim:smp"))
    }

    @Test("an unsupported or malformed fault, or a bad address, is refused when the device is made: a usage error")
    func refusedAtCreation() {
        var unsupported = Self.fast
        unsupported.faults = ["corrupt-packet@1"]
        var badAddress = Self.fast
        badAddress.address = "C0:DE"
        for (kind, options) in [(SimulatedDeviceKind.smp, unsupported), (.secure, badAddress)] {
            #expect {
                try SimulatedTarget(kind, options: options)
            } throws: { error in
                (error as? UpdateError)?.exitStatus == .usage
            }
        }
    }

    @Test("nRF5 kinds advertise at an address, the one asked for when given; the SMP device has none")
    func addresses() throws {
        #expect(try SimulatedTarget(.smp, options: Self.fast).address == nil)
        #expect(try SimulatedTarget(.secure, options: Self.fast).address != nil)
        var chosen = Self.fast
        chosen.address = "C0:DE:00:00:00:10"
        #expect(try SimulatedTarget(.secure, options: chosen).address == "C0:DE:00:00:00:10")
    }

    @Test("an update reaches each nRF5 kind that blinky's protocols cover, and the device holds the image")
    func updates() async throws {
        for kind in [SimulatedDeviceKind.secure, .buttonless, .legacy] {
            let device = try SimulatedTarget(kind, options: Self.fast)
            #expect(device.images.isEmpty, "\(kind)")
            let summary = try await FirmwareUpdate(firmware: try Firmware("blinky-pca10040"), target: device.target)
                .run()
            #expect(summary.bytesConfirmed == 604, "\(kind)")
            #expect(device.images.map(\.name) == ["application"], "\(kind)")
            #expect(device.images.first?.bytes.count == 604, "\(kind)")
        }
    }
}
