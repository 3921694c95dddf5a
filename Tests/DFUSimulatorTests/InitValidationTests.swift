import Checksums
import DFUSimulator
import Testing

/// A verifier that accepts exactly one signature, standing in for a crypto module.
struct FixedSignatureVerifier: SignatureVerifier {
    let goodSignature: [UInt8]

    func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        signature == goodSignature && !message.isEmpty && publicKey.count == 64
    }
}

@Suite("Init packet validation")
struct InitValidationTests {
    static let image = testImage(256)

    /// Sends `initPacket` as a command object and returns the Execute response.
    func executeResponse(_ initPacket: [UInt8], options: SecureBootloaderOptions = SecureBootloaderOptions())
        -> [[UInt8]]
    {
        var driver = DeviceDriver(.secure(options: options))
        driver.connect()
        driver.subscribe(.secureControlPoint)
        _ = driver.request([0x01, 0x01] + le32(initPacket.count))  // Create command
        _ = driver.send(initPacket, chunk: 20)
        return driver.request([0x04])  // Execute
    }

    static func modified(_ change: (inout InitPacketBuilder) -> Void) -> [UInt8] {
        var builder = InitPacketBuilder.application(for: image)
        change(&builder)
        return builder.unsigned
    }

    static let cases: [(String, [UInt8], [UInt8])] = [
        ("valid", modified { _ in }, [0x60, 0x04, 0x01]),
        ("undecodable", [0x0A, 0x05, 0x08], [0x60, 0x04, 0x05]),
        ("no init command", lengthField(1, varintField(1, 1)), [0x60, 0x04, 0x05]),
        ("missing type", modified { $0.type = nil }, [0x60, 0x04, 0x0B, 0x04]),
        ("external application", modified { $0.type = 4 }, [0x60, 0x04, 0x0B, 0x04]),
        ("CRC hash type", modified { $0.hashType = 1 }, [0x60, 0x04, 0x0B, 0x09]),
        ("missing hash", modified { $0.hash = nil }, [0x60, 0x04, 0x0B, 0x09]),
        ("missing hw_version", modified { $0.hwVersion = nil }, [0x60, 0x04, 0x0B, 0x04]),
        ("wrong hw_version", modified { $0.hwVersion = 51 }, [0x60, 0x04, 0x0B, 0x06]),
        ("wrong SoftDevice", modified { $0.sdReq = [0x9D, 0xB7] }, [0x60, 0x04, 0x0B, 0x07]),
        ("no sd_req", modified { $0.sdReq = [] }, [0x60, 0x04, 0x0B, 0x07]),
        ("missing fw_version", modified { $0.fwVersion = nil }, [0x60, 0x04, 0x0B, 0x04]),
        ("missing app_size", modified { $0.appSize = nil }, [0x60, 0x04, 0x0B, 0x04]),
        (
            "bootloader version not above 0",
            modified {
                $0.type = 2
                $0.blSize = 256
                $0.fwVersion = 0
            }, [0x60, 0x04, 0x0B, 0x05]
        ),
        ("image too large", modified { $0.appSize = 0x10_0000 }, [0x60, 0x04, 0x04]),
    ]

    @Test("Execute of the init packet answers", arguments: cases)
    func execute(name: String, initPacket: [UInt8], expected: [UInt8]) {
        #expect(executeResponse(initPacket) == [expected], "\(name)")
    }

    @Test("an application older than the installed one is refused unless downgrades are allowed")
    func downgrade() {
        var options = SecureBootloaderOptions()
        options.applicationVersion = 5
        let older = Self.modified { $0.fwVersion = 4 }
        #expect(executeResponse(older, options: options) == [[0x60, 0x04, 0x0B, 0x05]])
        #expect(executeResponse(Self.modified { $0.fwVersion = 5 }, options: options) == [[0x60, 0x04, 0x01]])
        options.preventsApplicationDowngrade = false
        #expect(executeResponse(older, options: options) == [[0x60, 0x04, 0x01]])
    }

    @Test("a debug bootloader skips version checks for is_debug packets")
    func debugPackets() {
        var options = SecureBootloaderOptions()
        options.isDebugBuild = true
        let debug = Self.modified {
            $0.hwVersion = 1
            $0.isDebug = true
        }
        #expect(executeResponse(debug, options: options) == [[0x60, 0x04, 0x01]])
        #expect(executeResponse(debug) == [[0x60, 0x04, 0x0B, 0x06]])
    }

    static func verifiedOptions() -> SecureBootloaderOptions {
        var options = SecureBootloaderOptions()
        options.signature = .verified(
            publicKey: Array(repeating: 0x11, count: 64),
            verifier: FixedSignatureVerifier(goodSignature: Array(repeating: 0x5A, count: 64)),
            requiresSignedApplication: true
        )
        return options
    }

    @Test("signatures are checked through the configured verifier")
    func signatures() {
        let builder = InitPacketBuilder.application(for: Self.image)
        let options = Self.verifiedOptions()
        let good = Array(repeating: UInt8(0x5A), count: 64)
        #expect(executeResponse(builder.unsigned, options: options) == [[0x60, 0x04, 0x0B, 0x08]])
        #expect(
            executeResponse(builder.signed(signatureType: 1, signature: good), options: options) == [
                [0x60, 0x04, 0x0B, 0x0B]
            ])
        #expect(
            executeResponse(builder.signed(signature: Array(good.prefix(63))), options: options) == [
                [0x60, 0x04, 0x0A]
            ])
        #expect(
            executeResponse(builder.signed(signature: Array(repeating: 0, count: 64)), options: options) == [
                [0x60, 0x04, 0x05]
            ])
        #expect(executeResponse(builder.signed(signature: good), options: options) == [[0x60, 0x04, 0x01]])
        // An open bootloader takes the signed packet without checking.
        #expect(executeResponse(builder.signed(signature: Array(repeating: 0, count: 64))) == [[0x60, 0x04, 0x01]])
    }

    @Test("a firmware hash mismatch fails the last Execute with extended error 0x0C")
    func hashMismatch() {
        var driver = DeviceDriver(.secure(application: testImage(64)))
        driver.connect()
        driver.subscribe(.buttonlessWithoutBonds)
        _ = driver.request([0x01], on: .buttonlessWithoutBonds)
        driver.connect()
        driver.subscribe(.secureControlPoint)
        var wrong = Self.image
        wrong[7] ^= 0xFF
        let seen = driver.secureTransfer(
            initPacket: InitPacketBuilder.application(for: Self.image).unsigned, image: wrong)
        #expect(seen.last == [0x60, 0x04, 0x0B, 0x0C])
        #expect(driver.device.activatedImage(.application) == nil)
        // The device resets anyway and starts the old application.
        #expect(driver.device.deviceMode == .application)
        #expect(driver.device.installedImage(.application) == testImage(64))
    }
}
