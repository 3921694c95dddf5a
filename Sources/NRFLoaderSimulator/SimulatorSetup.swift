import DFUController
package import DFUPackage
import DFUSigning
package import DFUSimulator
package import DeviceLink
package import NRFLoaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// How the simulated devices are set up from the user's choices: kinds, faults, the bootloader an input needs.
package enum SimulatorSetup {
    /// The configuration of a simulated `kind` set up to accept `packages` (their hardware version and SoftDevice,
    /// for either protocol they carry), with `faults`.
    package static func configuration(_ kind: SimulatedTargetKind, for packages: [DFUPackage], faults: FaultPlan)
        -> SimulatorConfiguration
    {
        var requirements = SimulatedRequirements(packages[0])
        for other in packages.dropFirst() {
            requirements.legacySoftDevice =
                requirements.legacySoftDevice ?? SimulatedRequirements(other).legacySoftDevice
        }
        var secure = SecureBootloaderOptions()
        secure.hardwareVersion = requirements.hardwareVersion ?? 52
        secure.softDeviceFWID = requirements.softDevice
        return configuration(kind, secure: secure, legacySoftDevice: requirements.legacySoftDevice, faults: faults)
    }
    /// Creates `directory` (one level, as `mkdir` does) unless it exists; fails unless it is then a directory.
    package static func makeImageDirectory(_ directory: String) throws {
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw FileFailure.cannotCreateOutput(path: directory, reason: InputFile.describeErrno())
        }
        var information = stat()
        guard stat(directory, &information) == 0 else {
            throw FileFailure.cannotCreateOutput(path: directory, reason: InputFile.describeErrno())
        }
        guard information.st_mode & S_IFMT == S_IFDIR else {
            throw FileFailure.cannotCreateOutput(path: directory, reason: "not a directory")
        }
    }
    /// The faults of `--sim-fault` texts and `--sim-seed`.
    package static func faultPlan(_ texts: [String], seed: UInt64) throws -> FaultPlan {
        FaultPlan(seed: seed, faults: try texts.map { try FaultSpecification.parse($0) })
    }
    /// The configuration of a simulated device of `kind`.
    ///
    /// - Parameters:
    ///   - kind: The kind of device.
    ///   - secure: The Secure bootloader's options (`secure`, `buttonless`).
    ///   - legacySoftDevice: The legacy SDK 11 bootloader's SoftDevice, `nil` for its default.
    ///   - faults: Faults to inject.
    /// - Returns: The configuration, at the simulator's default address.
    package static func configuration(
        _ kind: SimulatedTargetKind, secure: SecureBootloaderOptions, legacySoftDevice: UInt16?, faults: FaultPlan
    ) -> SimulatorConfiguration {
        switch kind {
        case .secure:
            return SimulatorConfiguration(bootloader: .secure(secure), faults: faults)
        case .buttonless:
            return SimulatorConfiguration(
                bootloader: .secure(secure), buttonless: .secureWithoutBonds,
                installedApplication: [UInt8](repeating: 0xA5, count: 4096), faults: faults)
        case .legacy:
            var legacy = LegacyBootloaderOptions(generation: .sdk11)
            // An nRF52832 with S132 2.0 and the SDK 11 dual-bank bootloader: (0x7A000 − 0x1C000) / 2 per bank.
            legacy.bankSize = 0x2_F000
            if let legacySoftDevice { legacy.softDeviceFWID = legacySoftDevice }
            return SimulatorConfiguration(bootloader: .legacy(legacy), faults: faults)
        case .legacyV1:
            return SimulatorConfiguration(bootloader: .legacy(LegacyBootloaderOptions(generation: .v1)), faults: faults)
        }
    }
}

/// The kinds of simulated device `--target` names.
package enum SimulatedTargetKind: String, CaseIterable {
    /// A Secure DFU bootloader (SDK 12-17), waiting in DFU mode.
    case secure
    /// An application with Secure buttonless DFU (no bonds): the bootloader comes back at address + 1.
    case buttonless
    /// A legacy DFU bootloader (SDK 7-11, DFU version 0.8).
    case legacy
    /// The oldest legacy bootloader (nRF51 SDK 4-5, no version characteristic), as nRF Loader spoke to.
    case legacyV1 = "legacy-v1"

    /// The init packet family the device speaks.
    package var protocolFamily: FirmwareOptions.DFUProtocol {
        switch self {
        case .secure, .buttonless: .secure
        case .legacy, .legacyV1: .legacy
        }
    }
}

/// What a simulated bootloader must have installed to accept a package: the first SoftDevice its init packets
/// require (other than "any") and, for Secure DFU, their hardware version.
package struct SimulatedRequirements {
    package var softDevice: UInt32?
    package var hardwareVersion: UInt32?
    package var legacySoftDevice: UInt16?

    package init(_ package: DFUPackage) {
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

extension SimulatedDevice {
    /// A device of `configuration` that first advertises at `address`: kinds that start in a bootloader at the
    /// application's address + 1 get the application address one below, so that the adapter's own address is
    /// where a central finds the device.
    ///
    /// - Parameters:
    ///   - configuration: The device; its address is replaced.
    ///   - address: The adapter's address.
    /// - Returns: The device.
    package static func advertising(_ configuration: SimulatorConfiguration, at address: DeviceAddress)
        -> SimulatedDevice
    {
        var configuration = configuration
        configuration.address = address
        let device = SimulatedDevice(configuration: configuration)
        guard device.advertisement?.address == address.bootloaderAddress else { return device }
        var below = address.bytes
        below[5] &-= 1
        configuration.address = DeviceAddress(bytes: below)
        return SimulatedDevice(configuration: configuration)
    }
}

extension SignaturePolicy {
    /// Signatures required and checked with the public part of a key file, as an SDK bootloader built with that
    /// key checks them (applications too: `NRF_DFU_REQUIRE_SIGNED_APP_UPDATE` is 1 in the SDK examples).
    ///
    /// - Parameter path: A PEM public or private key, or Nordic's 64-byte public key (raw or hex).
    /// - Returns: The policy.
    /// - Throws: ``FileFailure`` when the file cannot be read, `DFUSigningError` when it holds no usable key.
    package static func verified(keyFile path: String) throws -> SignaturePolicy {
        let contents = try InputFile(path: path).readAll()
        let verifier: InitPacketVerifier
        do {
            verifier = try InitPacketVerifier(keyFile: contents, file: path)
        } catch .expectedPublicKey {
            verifier = try InitPacketSigner(pem: String(decoding: contents, as: UTF8.self), file: path).verifier
        }
        return .verified(
            publicKey: verifier.nordicPublicKey, verifier: InitPacketSignatureVerifier(),
            requiresSignedApplication: true)
    }
}

/// The simulated bootloader's signature check, done with the project's own verifier (swift-crypto).
package struct InitPacketSignatureVerifier: SignatureVerifier {
    package init() {}

    package func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let verifier = try? InitPacketVerifier(nordicPublicKey: publicKey, file: "bootloader key") else {
            return false
        }
        let signed = SignedMessage(
            message: message, signatureType: .ecdsaP256SHA256,
            signature: SignedMessage.swappingHalvesByteOrder(signature))
        return (try? verifier.check(signed, file: "init packet")) == .valid
    }
}
