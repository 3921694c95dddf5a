import ArgumentParser
import DFUPackage
import DFUSimulator
import FirmwareInput

/// `--target sim[:KIND]`: which simulated device, and the options that shape it.
struct SimulatorOptions: ParsableArguments {
    @Option(help: "Simulation pace: 1 = real time, 10 = ten times faster, 0 = as fast as possible.")
    var simSpeed: Double = 1

    @Option(help: "Inject a fault into the simulated device (repeatable), e.g. disconnect@6000, drop-packet@40.")
    var simFault: [String] = []

    @Option(help: "Seed for random faults (drop-packet~0.01).")
    var simSeed: UInt64 = 0

    func validate() throws {
        guard simSpeed >= 0 else { throw ValidationError("--sim-speed must be 0 or more") }
        for text in simFault {
            do {
                _ = try FaultSpecification.parse(text)
            } catch {
                throw ValidationError("--sim-fault: \(error)")
            }
        }
    }

    /// The simulated device for `kind`, set up to accept `input` (its hardware version and SoftDevice).
    func device(_ kind: SimulatedTargetKind, for input: FirmwareInput) throws -> SimulatedDevice {
        let faults = FaultPlan(seed: simSeed, faults: try simFault.map { try FaultSpecification.parse($0) })
        let requirements = SimulatedRequirements(input.package)
        var secure = SecureBootloaderOptions()
        secure.hardwareVersion = requirements.hardwareVersion ?? 52
        secure.softDeviceFWID = requirements.softDevice
        let configuration: SimulatorConfiguration
        switch kind {
        case .secure:
            configuration = SimulatorConfiguration(bootloader: .secure(secure), faults: faults)
        case .buttonless:
            configuration = SimulatorConfiguration(
                bootloader: .secure(secure), buttonless: .secureWithoutBonds,
                installedApplication: [UInt8](repeating: 0xA5, count: 4096), faults: faults)
        case .legacy:
            var legacy = LegacyBootloaderOptions(generation: .sdk11)
            // An nRF52832 with S132 2.0 and the SDK 11 dual-bank bootloader: (0x7A000 − 0x1C000) / 2 per bank.
            legacy.bankSize = 0x2_F000
            if let softDevice = requirements.legacySoftDevice { legacy.softDeviceFWID = softDevice }
            configuration = SimulatorConfiguration(bootloader: .legacy(legacy), faults: faults)
        case .legacyV1:
            configuration = SimulatorConfiguration(
                bootloader: .legacy(LegacyBootloaderOptions(generation: .v1)), faults: faults)
        }
        return SimulatedDevice(configuration: configuration)
    }
}

/// The kinds of simulated device `--target` names.
enum SimulatedTargetKind: String, CaseIterable {
    /// A Secure DFU bootloader (SDK 12-17), waiting in DFU mode.
    case secure
    /// An application with Secure buttonless DFU (no bonds): the bootloader comes back at address + 1.
    case buttonless
    /// A legacy DFU bootloader (SDK 7-11, DFU version 0.8).
    case legacy
    /// The oldest legacy bootloader (nRF51 SDK 4-5, no version characteristic), as nRF Loader spoke to.
    case legacyV1 = "legacy-v1"

    /// The init packet family the device speaks.
    var protocolFamily: FirmwareInput.ProtocolFamily {
        switch self {
        case .secure, .buttonless: .secure
        case .legacy, .legacyV1: .legacy
        }
    }
}

/// What a simulated bootloader must have installed to accept a package: the first SoftDevice its init packets
/// require (other than "any") and, for Secure DFU, their hardware version.
struct SimulatedRequirements {
    var softDevice: UInt32?
    var hardwareVersion: UInt32?
    var legacySoftDevice: UInt16?

    init(_ package: DFUPackage) {
        for part in package.parts {
            switch part.initPacket {
            case .secure(let packet):
                guard let command = packet.command.initCommand else { continue }
                softDevice = softDevice ?? command.sdReq.first
                hardwareVersion = hardwareVersion ?? command.hwVersion
            case .legacy(let packet):
                legacySoftDevice = legacySoftDevice ?? packet.softdeviceReq.first { $0 != 0xFFFE }
            }
        }
    }
}
