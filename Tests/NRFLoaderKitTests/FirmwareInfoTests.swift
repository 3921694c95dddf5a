import Foundation
import NRFLoaderKit
import TestSupport
import Testing

/// Inspecting firmware, through the public API alone.
@Suite struct FirmwareInfoTests {
    @Test("a signed nrfutil package: its parts, init packet fields, and signatures checked with a key")
    func signedPackage() throws {
        let path = Fixtures.packageBuilder + "/nrfutil-sd-bl-ecdsa-signed.zip"
        var options = FirmwareOptions()
        guard case .dfuPackage(let unchecked) = try FirmwareInfo(inspecting: path) else {
            Issue.record("not read as a DFU package")
            return
        }
        #expect(unchecked.format == .secure)
        #expect(unchecked.parts.map(\.imageType) == ["softdevice_bootloader"])
        #expect(unchecked.parts.map(\.signature) == [.notVerified])
        #expect(unchecked.verificationFailure == nil)
        let part = try #require(unchecked.parts.first)
        guard case .secure(let command?) = part.initPacket else {
            Issue.record("no init command")
            return
        }
        #expect(command.hardwareVersion == 52)
        #expect(command.softDeviceRequirements == [0x0101])
        #expect(command.firmwareType == "SOFTDEVICE_BOOTLOADER")
        #expect(command.bootloaderSize == 6148)

        options.verificationKeyFile = Fixtures.packages + "/nrfutil-test-key.pub.pem"
        let checked = try FirmwareInfo(inspecting: path, options: options)
        guard case .dfuPackage(let package) = checked else { return }
        #expect(package.parts.map(\.signature) == [.valid])
        #expect(checked.verificationFailure == nil)
    }

    @Test("an unsigned package checked with a key is described, and its verification failure is bad data")
    func unsignedPackageWithKey() throws {
        var options = FirmwareOptions()
        options.verificationKeyFile = Fixtures.packages + "/nrfutil-test-key.pub.pem"
        let info = try FirmwareInfo(inspecting: Fixtures.packageBuilder + "/nrfutil-gaps.zip", options: options)
        guard case .dfuPackage(let package) = info else {
            Issue.record("not read as a DFU package")
            return
        }
        #expect(package.parts.map(\.signature) == [.unsigned])
        let failure = try #require(info.verificationFailure)
        #expect(failure.exitStatus == .dataError)
        #expect(failure.message.contains("does not verify with '\(Fixtures.packages)/nrfutil-test-key.pub.pem'"))
    }

    @Test("a legacy package: the init packet's device fields and CRC")
    func legacyPackage() throws {
        guard
            case .dfuPackage(let package) = try FirmwareInfo(
                inspecting: Fixtures.packageBuilder + "/adafruit-gaps.zip")
        else {
            Issue.record("not read as a DFU package")
            return
        }
        guard case .legacy = package.format, case .legacy(let packet)? = package.parts.first?.initPacket else {
            Issue.record("not a legacy package")
            return
        }
        #expect(packet.deviceType == 0x0052)
        #expect(packet.applicationVersion == 3)
        #expect(packet.softDeviceRequirements == [0x0101, 0x00B6])
        guard case .crc16 = packet.validation else {
            Issue.record("expected a CRC-16, got \(packet.validation)")
            return
        }
    }

    @Test("a HEX file: its regions and the DFU image Nordic's tools would make of it")
    func intelHex() throws {
        let folder = Fixtures.root + "/Resources/firmware/"
        guard case .intelHex(let hex) = try FirmwareInfo(inspecting: folder + "blinky-pca10040.hex") else {
            Issue.record("not read as Intel HEX")
            return
        }
        let binary = try Fixtures.bytes(folder + "blinky-pca10040.bin")
        #expect(hex.file == folder + "blinky-pca10040.hex")
        #expect(hex.imageSize == binary.count)
        #expect(hex.regions.map(\.count).reduce(0, +) <= binary.count)
        #expect(hex.vectorTable != nil)
        guard case .binary(let bin) = try FirmwareInfo(inspecting: folder + "blinky-pca10040.bin") else {
            Issue.record("not read as a binary image")
            return
        }
        #expect(bin.sha256 == hex.imageSHA256)
        #expect(bin.size == binary.count)
    }

    @Test("a catalog entry: its fields and its vector table")
    func catalogEntry() throws {
        guard case .catalogEntry(let entry) = try FirmwareInfo(inspecting: "blinky-pca10040") else {
            Issue.record("not read as a catalog entry")
            return
        }
        #expect(entry.item.id == "blinky-pca10040")
        #expect(entry.item.protocols.contains("secure"))
        #expect(entry.vectorTable != nil)
        #expect(entry.mcubootImage == nil)
    }

    @Test("a signed MCUboot image: header, TLVs and hash checked; a wrong key is a verification failure")
    func mcubootImage() throws {
        let path = Fixtures.data + "/mcuboot/ecdsa-p256.bin"
        guard case .mcubootImage(let image) = try FirmwareInfo(inspecting: path) else {
            Issue.record("not read as an MCUboot image")
            return
        }
        #expect(image.headerMagic == 0x96F3_B83D)
        #expect(image.hashError == nil)
        #expect(image.storedHash?.count == 32)
        #expect(image.signatureCheck == nil)
        #expect(image.tlvs.entries.contains { $0.typeName == "SHA256" })

        var options = FirmwareOptions()
        options.verificationKeyFile = Fixtures.data + "/keys/test-public-key.pem"
        let checked = try FirmwareInfo(inspecting: path, options: options)
        guard case .mcubootImage(let withKey) = checked, let check = withKey.signatureCheck else {
            Issue.record("no signature check")
            return
        }
        switch check {
        case .verified: #expect(checked.verificationFailure == nil)
        case .failed(let error): #expect(checked.verificationFailure?.message == error.message)
        }
    }

    @Test("an unknown catalog id is a missing input (66) naming the id")
    func unknownID() {
        #expect {
            _ = try FirmwareInfo(inspecting: "no-such-firmware")
        } throws: { error in
            let error = error as? UpdateError
            return error?.exitStatus == .noInput && error?.message.contains("no-such-firmware") == true
        }
    }
}
