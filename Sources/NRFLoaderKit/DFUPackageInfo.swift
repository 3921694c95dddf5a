package import DFUPackage
package import DFUSigning

/// What inspecting an nRF5 DFU package (`.zip`) shows: its format and, for each part, its files, sizes, decoded
/// init packet and signature.
public struct DFUPackageInfo: Sendable {
    /// The package's protocol.
    public enum Format: Sendable, Equatable {
        /// A Secure DFU package, as nrfutil makes it.
        case secure
        /// A legacy DFU package, with the `dfu_version` its manifest names, if any.
        case legacy(dfuVersion: Double?)
    }

    /// What is known of a part's init packet signature.
    public enum SignatureStatus: String, Sendable, CaseIterable {
        /// The init packet carries no signature.
        case unsigned
        /// The init packet is signed, and no key was given to check it with.
        case notVerified
        /// The signature verifies with the key given.
        case valid
        /// The signature does not verify with the key given.
        case invalid
    }

    /// The fields of a Secure DFU init command; `nil` for a field the packet leaves out.
    public struct SecureInitCommand: Sendable, Equatable {
        /// `fw_version`.
        public let firmwareVersion: UInt32?
        /// `hw_version`.
        public let hardwareVersion: UInt32?
        /// `sd_req`: the SoftDevice firmware ids the image accepts.
        public let softDeviceRequirements: [UInt32]
        /// `type`, as nrfutil names it: `APPLICATION`, `SOFTDEVICE`, `BOOTLOADER`, `SOFTDEVICE_BOOTLOADER` or
        /// `EXTERNAL_APPLICATION`.
        public let firmwareType: String?
        /// `sd_size`.
        public let softDeviceSize: UInt32?
        /// `bl_size`.
        public let bootloaderSize: UInt32?
        /// `app_size`.
        public let applicationSize: UInt32?
        /// The hash type as nrfutil names it, such as `SHA256`, or `nil` without a hash.
        public let hashType: String?
        /// The hash, in the order `sha256sum` prints it, or `nil` without a hash.
        public let hash: [UInt8]?
        /// `is_debug`.
        public let isDebug: Bool?
    }

    /// How a legacy init packet identifies the image, as the packet's `dfu_version` chooses.
    public enum LegacyValidation: Sendable, Equatable {
        /// `dfu_version` 0.5: a CRC-16 of the image.
        case crc16(UInt16)
        /// `dfu_version` 0.6: extension id 0, then a CRC-16 of the image.
        case extendedCRC16(UInt16)
        /// Extension id 1: the image's length and SHA-256.
        case sha256(firmwareLength: UInt32, digest: [UInt8])
        /// Extension id 2: the image's length and SHA-256, and an ECDSA signature over the packet.
        case signedSHA256(firmwareLength: UInt32, digest: [UInt8], signature: [UInt8])
    }

    /// The fields of a legacy DFU (nRF5 SDK 7 to 11) init packet.
    public struct LegacyInitPacket: Sendable, Equatable {
        /// The device type the bootloader accepts.
        public let deviceType: UInt16
        /// The device revision the bootloader accepts.
        public let deviceRevision: UInt16
        /// The application version.
        public let applicationVersion: UInt32
        /// The SoftDevice firmware ids the image accepts.
        public let softDeviceRequirements: [UInt16]
        /// How the image is identified.
        public let validation: LegacyValidation
    }

    /// A part's decoded init packet.
    public enum InitPacket: Sendable, Equatable {
        /// A Secure DFU init packet; `nil` when its command is not an init command.
        case secure(SecureInitCommand?)
        /// A legacy DFU init packet.
        case legacy(LegacyInitPacket)
    }

    /// One image of the package with its init packet.
    public struct Part: Sendable {
        /// The manifest's name for the image: `application`, `bootloader`, `softdevice` or `softdevice_bootloader`.
        public let imageType: String
        /// The image's file in the zip.
        public let binFile: String
        /// The init packet's file in the zip.
        public let datFile: String
        /// The image's size in bytes.
        public let size: Int
        /// The init packet's size in bytes.
        public let initPacketSize: Int
        /// The decoded init packet.
        public let initPacket: InitPacket
        /// The init packet's signature.
        public let signature: SignatureStatus
    }

    /// The package's name: its path, or `<stdin>`.
    public let file: String
    /// The package's protocol.
    public let format: Format
    /// The parts, in the manifest's order.
    public let parts: [Part]
    /// The signature check that failed when a key was given, reported after the rest is shown; else `nil`.
    public let verificationFailure: UpdateError?

    package init(package: DFUPackage, verifier: InitPacketVerifier?, keyFile: String?) throws {
        file = package.name
        switch package.format {
        case .secure: format = .secure
        case .legacy(let version): format = .legacy(dfuVersion: version)
        }
        parts = try package.parts.map { part in
            let signature: SignatureStatus
            if let verifier {
                switch try verifier.check(part, packageName: package.name) {
                case .valid: signature = .valid
                case .invalid: signature = .invalid
                case .unsigned: signature = .unsigned
                }
            } else {
                signature = part.signedMessage == nil ? .unsigned : .notVerified
            }
            return Part(
                imageType: part.imageType.rawValue, binFile: part.binFile, datFile: part.datFile,
                size: part.firmware.count, initPacketSize: part.initPacketBytes.count,
                initPacket: Self.initPacket(part.initPacket), signature: signature)
        }
        if let keyFile, parts.contains(where: { $0.signature != .valid }) {
            verificationFailure = UpdateError(
                FirmwareInputError.signature(
                    input: package.name, part: "init packet", problem: "does not verify with '\(keyFile)'"))
        } else {
            verificationFailure = nil
        }
    }

    private static func initPacket(_ packet: DFUPackage.InitPacket) -> InitPacket {
        switch packet {
        case .secure(let packet):
            return .secure(
                packet.command.initCommand.map { command in
                    SecureInitCommand(
                        firmwareVersion: command.fwVersion, hardwareVersion: command.hwVersion,
                        softDeviceRequirements: command.sdReq, firmwareType: command.type.map { "\($0)" },
                        softDeviceSize: command.sdSize, bootloaderSize: command.blSize,
                        applicationSize: command.appSize, hashType: command.hash.map { "\($0.hashType)" },
                        hash: command.hash?.standardOrderDigest, isDebug: command.isDebug)
                })
        case .legacy(let packet):
            let validation: LegacyValidation
            switch packet.validation {
            case .crc16(let crc): validation = .crc16(crc)
            case .extendedCRC16(let crc): validation = .extendedCRC16(crc)
            case .sha256(let length, let digest): validation = .sha256(firmwareLength: length, digest: digest)
            case .signedSHA256(let length, let digest, let signature):
                validation = .signedSHA256(firmwareLength: length, digest: digest, signature: signature)
            }
            return .legacy(
                LegacyInitPacket(
                    deviceType: packet.deviceType, deviceRevision: packet.deviceRevision,
                    applicationVersion: packet.applicationVersion, softDeviceRequirements: packet.softdeviceReq,
                    validation: validation))
        }
    }
}
