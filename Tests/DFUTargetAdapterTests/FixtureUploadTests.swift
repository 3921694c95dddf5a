import DFUController
import DFUPackage
import DFUSigning
import DFUSimulator
import NRFLoaderKit
import TestSupport
import Testing

/// The simulated bootloader's signature check, done with the project's own verifier (swift-crypto).
struct CryptoSignatureVerifier: SignatureVerifier {
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let verifier = try? InitPacketVerifier(nordicPublicKey: publicKey, file: "bootloader key") else {
            return false
        }
        let signed = SignedMessage(
            message: message, signatureType: .ecdsaP256SHA256,
            signature: SignedMessage.swappingHalvesByteOrder(signature))
        return (try? verifier.check(signed, file: "init packet")) == .valid
    }
}

/// A debug build of the SDK's Secure bootloader with `key` compiled in, and the SoftDevice `package` requires.
func keyedBootloader(for package: DFUPackage, key: [UInt8]) -> SimulatedDevice {
    var options = SecureBootloaderOptions()
    options.isDebugBuild = true
    // The SDK's *debug* bootloaders (with logging) are 40-50 KB and live lower than release ones (0x71000 on an
    // nRF52832, 0xD000 below the MBR parameter page).
    options.bootloaderRegionSize = 0xD000
    options.signature = .verified(publicKey: key, verifier: CryptoSignatureVerifier(), requiresSignedApplication: true)
    for part in package.parts {
        guard case .secure(let packet) = part.initPacket, let command = packet.command.initCommand else { continue }
        options.softDeviceFWID = command.sdReq.first
        options.hardwareVersion = command.hwVersion ?? 52
    }
    return SimulatedDevice(configuration: SimulatorConfiguration(bootloader: .secure(options)))
}

/// Every SDK fixture package: applications, SoftDevices, bootloaders, SoftDevice+bootloader.
let sdkFixtures: [String] = NordicFixtures.allZips()

@Suite
struct FixtureUploadTests {
    @Test("a real SDK package uploads to a bootloader holding that SDK's debug key", arguments: sdkFixtures)
    func uploadsWithDebugKey(path: String) async throws {
        let key = try #require(try NordicFixtures.debugKey(for: path))
        let (firmware, packages) = try Firmware(bytes: try NordicFixtures.bytes(path), name: path)
            .dfuUpdate(defaultProtocol: nil)
        let device = keyedBootloader(for: packages[0], key: bytes(hex: key.pkAsStoredHex))
        let (outcome, _, transport) = try await upload(firmware.parts, to: device)
        guard case .completed(let summary) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        let part = try #require(packages[0].parts.last)
        let image = part.firmware
        #expect(summary.parts.last?.bytesConfirmed == image.count)
        #expect(summary.parts.last?.crc32 == CRC32Reference.checksum(image))
        let activated: [UInt8]? =
            switch part.imageType {
            case .application: transport.device.activatedImage(.application)
            case .softdevice: transport.device.activatedImage(.softDevice)
            case .bootloader: transport.device.activatedImage(.bootloader)
            case .softdeviceBootloader:
                transport.device.activatedImage(.softDevice).flatMap { softdevice in
                    transport.device.activatedImage(.bootloader).map { softdevice + $0 }
                }
            }
        #expect(activated == image)
        #expect(transport.device.violations.isEmpty)
    }

    @Test("a bootloader holding another key rejects the package and activates nothing")
    func rejectsOtherKey() async throws {
        let path = try #require(sdkFixtures.first { $0.hasPrefix("sdk-17") && $0.contains("hrs_application") })
        let other = try #require(try NordicFixtures.debugKeys().first { $0.sdk != "17.0.2" && $0.pkAsStoredHex != "" })
        let (firmware, packages) = try Firmware(bytes: try NordicFixtures.bytes(path), name: path)
            .dfuUpdate(defaultProtocol: nil)
        let device = keyedBootloader(for: packages[0], key: bytes(hex: other.pkAsStoredHex))
        let (outcome, _, transport) = try await upload(firmware.parts, to: device)
        guard case .failed(.rejected(.secure(.execute, _, _)), _) = outcome else {
            Issue.record("expected Execute to be rejected, got \(outcome)")
            return
        }
        #expect(transport.device.activatedImage(.application) == nil)
    }
}
