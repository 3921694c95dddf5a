/// Why an update did not finish, saying who failed (style §14).
package import DeviceLink

package enum DFUError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The target answered a request with an error result.
    case rejected(DFURejection)
    /// The target sent something the protocol does not allow at this point.
    case protocolViolation(ProtocolViolation)
    /// The link or the Bluetooth stack failed.
    case transport(TransportFailure)
    /// A step did not finish in time.
    case timedOut(DFUTimeoutStep, limit: Duration)
    /// The user cancelled; the target was told to abort so it stays recoverable.
    case cancelled
    /// An object's checksum kept disagreeing with what was sent.
    case crcMismatchPersisted(CRCMismatch)
    /// The link was lost more often than the configuration allows.
    case reconnectsExhausted(attempts: Int)
    /// The device offers neither a DFU bootloader nor a way into one.
    case noDFUService(found: [DFUCharacteristic])
    /// The firmware cannot be sent to this kind of target.
    case firmwareUnsuitable(FirmwareMismatch)
    /// The firmware given to the controller is malformed.
    case invalidFirmware(FirmwareProblem)

    /// One lowercase line naming the problem and the place.
    package var description: String {
        switch self {
        case .rejected(let rejection): "target rejected \(rejection)"
        case .protocolViolation(let violation): "target violated the protocol: \(violation)"
        case .transport(let failure): "transport failed: \(failure)"
        case .timedOut(let step, let limit): "timed out after \(limit) waiting for \(step)"
        case .cancelled: "cancelled; the target was told to abort"
        case .crcMismatchPersisted(let mismatch): "\(mismatch)"
        case .reconnectsExhausted(let attempts): "link lost again after \(attempts) reconnects"
        case .noDFUService(let found):
            "device has no dfu service (found \(found.isEmpty ? "none" : found.map(\.description).joined(separator: ", ")))"
        case .firmwareUnsuitable(let mismatch): "\(mismatch)"
        case .invalidFirmware(let problem): "invalid firmware: \(problem)"
        }
    }
}

/// A request the target answered with an error, decoded with Nordic's names (never offset-encoded).
package enum DFURejection: Sendable, Equatable, CustomStringConvertible {
    /// A Secure DFU Control Point response `60 op rc [ext]`.
    case secure(SecureOpcode, SecureResultCode, SecureExtendedError?)
    /// A legacy DFU Control Point response `10 op status`.
    case legacy(LegacyOpcode, LegacyStatus)
    /// A buttonless indication `20 op rc`.
    case buttonless(ButtonlessOpcode, ButtonlessResultCode)

    /// For example `execute (0x04) with extendedError (0x0B): firmwareVersionFailure (0x05)`.
    package var description: String {
        switch self {
        case .secure(let opcode, let result, .some(let extended)): "\(opcode) with \(result): \(extended)"
        case .secure(let opcode, let result, .none): "\(opcode) with \(result)"
        case .legacy(let opcode, let status): "\(opcode) with \(status)"
        case .buttonless(let opcode, let result): "\(opcode) with \(result)"
        }
    }
}

/// What was wrong with a message from the target.
package enum ProtocolViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message is shorter than its format requires.
    case tooShort(expectedLength: Int, received: [UInt8])
    /// The message does not start with the expected bytes (response marker and echoed opcode).
    case unexpectedMessage(expected: [UInt8], received: [UInt8])
    /// The result or status byte is not one Nordic defines.
    case unknownResultCode(received: [UInt8])
    /// The extended error byte is not one the nRF5 SDK defines.
    case unknownExtendedError(received: [UInt8])
    /// A notification arrived while no request was waiting for one.
    case unsolicited(DFUCharacteristic, received: [UInt8])
    /// The target reported holding more bytes than were sent.
    case offsetBeyondSent(reported: UInt32, sent: Int)
    /// The target reported fewer bytes than it had confirmed on this connection: an executed object, or a matching
    /// receipt or checksum of the object in progress.
    case offsetBelowConfirmed(OffsetReporter, reported: UInt32, confirmed: Int)
    /// A Select answer gave a maximum object size the controller cannot use.
    case unusableObjectSize(SecureObjectType, UInt32)
    /// The legacy Version characteristic did not hold two bytes.
    case malformedVersion(received: [UInt8])

    /// One lowercase line with the bytes in hex.
    package var description: String {
        switch self {
        case .tooShort(let length, let received):
            "expected at least \(length) bytes, got '\(hexBytes(received))'"
        case .unexpectedMessage(let expected, let received):
            "expected a message starting '\(hexBytes(expected))', got '\(hexBytes(received))'"
        case .unknownResultCode(let received): "unknown result code in '\(hexBytes(received))'"
        case .unknownExtendedError(let received): "unknown extended error in '\(hexBytes(received))'"
        case .unsolicited(let characteristic, let received):
            "unexpected notification '\(hexBytes(received))' on \(characteristic)"
        case .offsetBeyondSent(let reported, let sent): "reported offset \(reported) but only \(sent) bytes were sent"
        case .offsetBelowConfirmed(let reporter, let reported, let confirmed):
            "\(reporter) reported offset \(reported), below the \(confirmed) bytes it had confirmed"
        case .unusableObjectSize(let type, let size): "unusable maximum \(type) object size \(size)"
        case .malformedVersion(let received): "dfu version characteristic holds '\(hexBytes(received))'"
        }
    }
}

/// Where the target reported how many bytes it holds.
package enum OffsetReporter: Sendable, Equatable, CustomStringConvertible {
    /// A Secure DFU checksum or packet receipt notification while this data object (0-based) was sent.
    case dataObject(Int)
    /// The legacy answer to Report Received Image Size.
    case legacyReceivedImageSize

    /// For example `data object 2`.
    package var description: String {
        switch self {
        case .dataObject(let index): "data object \(index)"
        case .legacyReceivedImageSize: "report received image size"
        }
    }
}

/// A failure the adapter reports; the controller never names the Bluetooth stack.
package struct TransportFailure: Sendable, Equatable, CustomStringConvertible {
    /// What the adapter was doing.
    package var operation: TransportOperation
    /// What kind of failure the transport reported, typed from the transport's own error (style §14): the
    /// controller decides on it whether to reconnect, and the CLI derives the exit status from it.
    package var kind: LinkError.Kind
    /// The transport's own error, rendered by the adapter (for BlueZ: the D-Bus error name and message).
    package var cause: String

    /// Creates a failure report.
    ///
    /// - Parameters:
    ///   - operation: What the adapter was doing.
    ///   - kind: What kind of failure it was.
    ///   - cause: The transport's own error text.
    package init(operation: TransportOperation, kind: LinkError.Kind, cause: String) {
        self.operation = operation
        self.kind = kind
        self.cause = cause
    }

    /// The link's failure, without the operation.
    package var error: LinkError { LinkError(kind, cause) }

    /// The operation and the cause: `write to secureControlPoint: org.bluez.Error.Failed: not connected`.
    ///
    /// A cause that already starts with the operation (`connect to C0:DE:…: the link dropped`) is not prefixed a
    /// second time.
    package var description: String {
        let operation = "\(operation)"
        return cause.hasPrefix(operation) ? cause : "\(operation): \(cause)"
    }
}

/// The transport operation that failed.
package enum TransportOperation: Sendable, Equatable, CustomStringConvertible {
    /// Connecting or discovering services.
    case connect
    /// Enabling notifications or indications.
    case enableNotifications(DFUCharacteristic)
    /// A write with or without response.
    case write(DFUCharacteristic)
    /// A read.
    case read(DFUCharacteristic)
    /// The link dropped.
    case link

    /// The operation in words.
    package var description: String {
        switch self {
        case .connect: "connect"
        case .enableNotifications(let characteristic): "enable notifications on \(characteristic)"
        case .write(let characteristic): "write to \(characteristic)"
        case .read(let characteristic): "read of \(characteristic)"
        case .link: "link"
        }
    }
}

/// What the controller was waiting for when a timer expired.
package enum DFUTimeoutStep: Sendable, Equatable, CustomStringConvertible {
    /// A Secure DFU response to this request.
    case secureResponse(SecureOpcode)
    /// A Secure DFU packet receipt notification.
    case securePacketReceipt
    /// A legacy DFU response to this request.
    case legacyResponse(LegacyOpcode)
    /// A legacy DFU packet receipt notification.
    case legacyPacketReceipt
    /// A buttonless indication answering this request.
    case buttonlessResponse(ButtonlessOpcode)
    /// The read of the legacy Version characteristic.
    case versionRead
    /// Connection and service discovery.
    case connection

    /// The step in words.
    package var description: String {
        switch self {
        case .secureResponse(let opcode): "the response to \(opcode)"
        case .securePacketReceipt: "a packet receipt notification"
        case .legacyResponse(let opcode): "the response to \(opcode)"
        case .legacyPacketReceipt: "a packet receipt notification"
        case .buttonlessResponse(let opcode): "the indication answering \(opcode)"
        case .versionRead: "the dfu version read"
        case .connection: "the connection"
        }
    }
}

/// The details of an object whose checksum never matched.
package struct CRCMismatch: Sendable, Equatable, CustomStringConvertible {
    /// The object type.
    package var objectType: SecureObjectType
    /// The object's index within its type, 0-based (always 0 for the command object).
    package var objectIndex: Int
    /// How many times it was sent.
    package var attempts: Int
    /// The offset expected after the object.
    package var expectedOffset: UInt32
    /// The CRC-32 expected over the image up to that offset.
    package var expectedCRC: UInt32
    /// The offset the target reported.
    package var reportedOffset: UInt32
    /// The CRC-32 the target reported.
    package var reportedCRC: UInt32

    /// One lowercase line.
    package var description: String {
        "\(objectType) object \(objectIndex) failed its checksum \(attempts) times: expected offset \(expectedOffset) "
            + "crc \(hex32(expectedCRC)), target reported offset \(reportedOffset) crc \(hex32(reportedCRC))"
    }
}

/// Why firmware does not suit the connected target.
package enum FirmwareMismatch: Sendable, Equatable, CustomStringConvertible {
    /// A legacy bootloader of DFU version 0.5 or later requires an init packet of at least 14 bytes.
    case initPacketRequired(legacyVersion: UInt16)
    /// Legacy DFU v1 (no Version characteristic, 4-byte size packet) can only update an application.
    case legacyV1CannotUpdate(ImageType)
    /// The init packet does not fit in one Secure DFU command object.
    case initPacketTooLarge(size: Int, maximum: UInt32)
    /// The device runs a bootloader of this protocol, and the update has no init packets for it.
    case noInitPacket(for: DFUProtocol)

    /// One lowercase line.
    package var description: String {
        switch self {
        case .initPacketRequired(let version):
            "legacy dfu version \(version >> 8).\(version & 0xFF) requires an init packet (.dat) of at least 14 bytes"
        case .legacyV1CannotUpdate(let type): "the legacy dfu v1 bootloader can only update an application, not \(type)"
        case .initPacketTooLarge(let size, let maximum):
            "init packet of \(size) bytes exceeds the target's command object limit of \(maximum)"
        case .noInitPacket(let dfuProtocol):
            "the device runs a \(dfuProtocol == .secure ? "secure" : "legacy") dfu bootloader, and the input has no "
                + "\(dfuProtocol == .secure ? "secure" : "legacy") init packet (a package made for the other protocol, "
                + "or a catalog entry without '\(dfuProtocol == .secure ? "secure" : "legacy")' dfu fields)"
        }
    }
}

/// What is wrong with the firmware handed to the controller.
package enum FirmwareProblem: Sendable, Equatable, CustomStringConvertible {
    /// There are no parts.
    case noParts
    /// A part's image is empty.
    case emptyImage(ImageType)
    /// A part's image is not a multiple of 4 bytes.
    case imageNotWordAligned(ImageType, size: Int)
    /// The SoftDevice and bootloader sizes do not add up to the image.
    case componentSizesMismatch(softDeviceSize: Int, bootloaderSize: Int, imageSize: Int)
    /// The Secure and legacy variants of an update hold different images.
    case variantsDiffer

    /// One lowercase line.
    package var description: String {
        switch self {
        case .noParts: "no firmware parts"
        case .emptyImage(let type): "\(type) image is empty"
        case .imageNotWordAligned(let type, let size): "\(type) image of \(size) bytes is not a multiple of 4"
        case .componentSizesMismatch(let softDevice, let bootloader, let image):
            "softdevice size \(softDevice) plus bootloader size \(bootloader) does not make image size \(image)"
        case .variantsDiffer: "the secure and legacy variants of the update hold different images"
        }
    }
}

/// Formats a CRC-32 as `0x` and eight uppercase hex digits.
///
/// - Parameter value: The CRC.
/// - Returns: For example `0x3D24DD49`.
func hex32(_ value: UInt32) -> String {
    "0x" + LittleEndian.bytes(of: value).reversed().map { String(hexByte($0).dropFirst(2)) }.joined()
}
