internal import Checksums

/// An init packet that passed Execute: what the data objects will be checked against.
struct ValidatedInit: Equatable {
    var packet: InitPacket
    var firmwareType: InitFirmwareType
    /// The image size the data objects must add up to (`m_firmware_size_req`).
    var firmwareSize: Int
}

/// The init packet checks of `nrf_dfu_validation.c` and `nrf_dfu_ver_validation.c` (nRF5 SDK 15–17), in the
/// order the SDK runs them.
struct InitValidator {
    var options: SecureBootloaderOptions
    /// The FWID of the SoftDevice present now (it changes after a SoftDevice update).
    var softDeviceFWID: UInt32?
    var applicationVersion: UInt32
    var bootloaderVersion: UInt32

    /// Execute of a complete command object: decode, signature, versions, size, space.
    func validate(_ bytes: [UInt8]) -> Result<ValidatedInit, SecureValidationFailure> {
        let packet: InitPacket
        do {
            packet = try InitPacket(decoding: bytes)
        } catch {
            var failure = SecureValidationFailure(.result(.invalidObject), reason: error.description)
            failure.resetsProgress = false
            return .failure(failure)
        }
        if let failure = checkSignature(packet) { return .failure(failure) }
        if let failure = checkVersions(packet.command) { return .failure(failure) }
        let command = packet.command
        let size: Int
        switch firmwareSize(command) {
        case .success(let value): size = value
        case .failure(let failure): return .failure(failure)
        }
        if size > options.updateCapacity {
            return .failure(.init(.result(.insufficientResources), reason: "image of \(size) bytes does not fit"))
        }
        guard let rawType = command.type, let type = InitFirmwareType(rawValue: rawType) else {
            preconditionFailure("firmware type was checked by checkVersions")
        }
        return .success(ValidatedInit(packet: packet, firmwareType: type, firmwareSize: size))
    }

    private func signatureRequired(for type: UInt32?) -> Bool {
        guard case .verified(_, _, let requiresSignedApplication) = options.signature else { return false }
        if type == InitFirmwareType.application.rawValue { return requiresSignedApplication }
        return true
    }

    private func checkSignature(_ packet: InitPacket) -> SecureValidationFailure? {
        guard case .verified(let key, let verifier, _) = options.signature,
            signatureRequired(for: packet.command.type)
        else { return nil }
        guard case .signed(let type, let signature) = packet.signature else {
            return .init(.extended(.signatureMissing), reason: "signature required but missing")
        }
        guard type == 0 else {
            return .init(.extended(.wrongSignatureType), reason: "signature type \(type) is not ECDSA P-256")
        }
        guard signature.count == 64 else {
            return .init(.result(.operationFailed), reason: "signature has \(signature.count) bytes, not 64")
        }
        guard verifier.isValidSignature(signature, of: packet.initCommandBytes, publicKey: key) else {
            return .init(.result(.invalidObject), reason: "signature does not verify")
        }
        return nil
    }

    private func checkVersions(_ command: InitCommand) -> SecureValidationFailure? {
        let validTypes: Set<UInt32> = [0, 1, 2, 3]
        guard let type = command.type, validTypes.contains(type) else {
            return .init(.extended(.initCommandInvalid), reason: "firmware type missing or unsupported")
        }
        guard command.hash?.type == 3 else {
            return .init(.extended(.wrongHashType), reason: "hash type is not SHA-256")
        }
        if options.isDebugBuild && command.isDebug == true { return nil }
        guard let hwVersion = command.hwVersion else {
            return .init(.extended(.initCommandInvalid), reason: "hw_version missing")
        }
        guard hwVersion == options.hardwareVersion else {
            return .init(
                .extended(.hardwareVersionFailure),
                reason: "hw_version \(hwVersion), device is \(options.hardwareVersion)"
            )
        }
        guard softDeviceRequirementMet(command, type: type) else {
            return .init(.extended(.softDeviceVersionFailure), reason: "sd_req \(command.sdReq) not met")
        }
        if let fwVersion = command.fwVersion {
            if !firmwareVersionAcceptable(fwVersion, type: type) {
                return .init(.extended(.firmwareVersionFailure), reason: "fw_version \(fwVersion) too low")
            }
        } else if firmwareVersionRequired(type: type) {
            return .init(.extended(.initCommandInvalid), reason: "fw_version missing")
        }
        return nil
    }

    /// `sd_req_ok` for a BLE bootloader (which always needs a SoftDevice).
    private func softDeviceRequirementMet(_ command: InitCommand, type: UInt32) -> Bool {
        let preventDowngrade =
            options.preventsApplicationDowngrade || type == InitFirmwareType.softDevice.rawValue
        guard let present = softDeviceFWID else {
            if let first = command.sdReq.first, first != 0 { return false }
            return !preventDowngrade || command.fwVersion != nil
        }
        guard let first = command.sdReq.first else { return false }
        if first != 0 { return command.sdReq.contains(present) }
        if type == InitFirmwareType.application.rawValue {
            // An application replacing the SoftDevice: BLE bootloaders refuse it when downgrade prevention
            // lists further FWIDs.
            return !(preventDowngrade && command.sdReq.count > 1)
        }
        return !preventDowngrade || type != InitFirmwareType.softDevice.rawValue
    }

    private func firmwareVersionRequired(type: UInt32) -> Bool {
        switch InitFirmwareType(rawValue: type) {
        case .softDevice: false
        case .application: options.preventsApplicationDowngrade
        case .bootloader, .softDeviceBootloader, .externalApplication, nil: true
        }
    }

    private func firmwareVersionAcceptable(_ version: UInt32, type: UInt32) -> Bool {
        switch InitFirmwareType(rawValue: type) {
        case .application, .softDevice:
            if !options.preventsApplicationDowngrade || version > applicationVersion { return true }
            return version == applicationVersion && options.acceptsSameApplicationVersion
        case .bootloader, .softDeviceBootloader, .externalApplication, nil:
            return version > bootloaderVersion
        }
    }

    /// `update_data_size_get`.
    private func firmwareSize(_ command: InitCommand) -> Result<Int, SecureValidationFailure> {
        var size: UInt32 = 0
        if command.type == InitFirmwareType.application.rawValue, let appSize = command.appSize {
            size = appSize
        } else if let type = command.type {
            if type & 1 != 0, let sdSize = command.sdSize { size = sdSize }
            if type & 2 != 0, let blSize = command.blSize {
                guard blSize <= options.bootloaderRegionSize else {
                    return .failure(.init(.result(.insufficientResources), reason: "bl_size \(blSize) too large"))
                }
                size &+= blSize
            }
        }
        guard size > 0 else {
            return .failure(.init(.extended(.initCommandInvalid), reason: "no valid firmware size"))
        }
        return .success(Int(size))
    }
}

/// A failed init packet or firmware check: the outcome the device reports and why, for the log.
struct SecureValidationFailure: Error, Equatable {
    var outcome: SecureOutcome
    var reason: String
    /// Whether the bootloader resets all progress: it does when a decodable packet fails a check, not when
    /// decoding fails (`nrf_dfu_validation_init_cmd_execute`).
    var resetsProgress = true

    init(_ outcome: SecureOutcome, reason: String) {
        self.outcome = outcome
        self.reason = reason
    }
}

extension ValidatedInit {
    /// Post-validation of the received image (`postvalidate`): the SHA-256 in the init packet is stored
    /// byte-reversed.
    func checkFirmware(_ image: [UInt8]) -> SecureValidationFailure? {
        let digest = SHA256.hash(image)
        guard let expected = packet.command.hash?.bytes, Array(expected.reversed()) == digest else {
            return SecureValidationFailure(.extended(.verificationFailed), reason: "firmware hash mismatch")
        }
        return nil
    }
}
