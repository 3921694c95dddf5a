/// Something the adapter must do, returned by every ``DFUController`` input in execution order.
///
/// The adapter performs actions one after another. A ``write(_:_:)`` or ``enableNotifications(_:)`` is awaited
/// before the next action starts, and its success is fed back at once with `DFUController/writeCompleted(at:)`.
package import DeviceLink

package enum DFUAction: Sendable, Equatable {
    /// Connect to the device, discover its services, then call `DFUController/connected(mtu:characteristics:at:)`.
    case connect(ConnectionRequest)
    /// Enable notifications (indications for buttonless characteristics) by writing the CCCD.
    case enableNotifications(DFUCharacteristic)
    /// Write a request with response (ATT Write Request).
    case write(DFUCharacteristic, [UInt8])
    /// Write packets without response (ATT Write Command), in order, one ATT write per element.
    case writePackets(DFUCharacteristic, [[UInt8]])
    /// Read a characteristic, then call ``DFUController/readCompleted(_:at:)``.
    case read(DFUCharacteristic)
    /// Start (or restart) a timer firing at an absolute time since the session started.
    case startTimer(DFUTimer, deadline: Duration)
    /// Cancel a timer if it is running.
    case cancelTimer(DFUTimer)
    /// Disconnect from the device.
    case disconnect
    /// Report progress to the user.
    case progress(DFUProgress)
    /// Record a message for `--verbose`.
    case log(String)
    /// The update succeeded; the summary holds what the device confirmed. No further actions follow.
    case finish(DFUSummary)
    /// The update failed or was cancelled. No further actions follow.
    case fail(DFUError)
}

/// The controller's named timers; each runs at most once at a time.
package enum DFUTimer: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Waiting for a Control Point response, indication, packet receipt notification or read.
    case response
    /// Waiting for connection and service discovery.
    case connection
    /// The pause between Create (data object) and the object's first packet.
    case objectPreparation
    /// Waiting for the target to drop the link after a jump or activation.
    case disconnection

    /// The timer's name.
    package var description: String {
        switch self {
        case .response: "response"
        case .connection: "connection"
        case .objectPreparation: "objectPreparation"
        case .disconnection: "disconnection"
        }
    }
}

/// The stage of an update, for progress display.
package enum DFUPhase: Sendable, Equatable, CustomStringConvertible {
    /// Connecting to the device or the bootloader.
    case connecting
    /// Asking the application to jump to the bootloader.
    case enteringBootloader
    /// Sending and executing the init packet.
    case sendingInitPacket
    /// Sending the firmware image.
    case sendingFirmware
    /// Waiting for the target to validate and activate the image.
    case validating

    /// The phase in words.
    package var description: String {
        switch self {
        case .connecting: "connecting"
        case .enteringBootloader: "entering bootloader"
        case .sendingInitPacket: "sending init packet"
        case .sendingFirmware: "sending firmware"
        case .validating: "validating"
        }
    }
}

/// A progress report.
package struct DFUProgress: Sendable, Equatable {
    /// The stage.
    package var phase: DFUPhase
    /// The part being sent, 1-based.
    package var part: Int
    /// The number of parts.
    package var partCount: Int
    /// Firmware payload bytes of this part written so far.
    package var bytesSent: Int
    /// Firmware payload bytes of this part the device confirmed (checksum, notification or execute).
    package var bytesConfirmed: Int
    /// Firmware payload bytes of this part.
    package var totalBytes: Int

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - phase: The stage.
    ///   - part: The part, 1-based.
    ///   - partCount: The number of parts.
    ///   - bytesSent: Payload bytes written.
    ///   - bytesConfirmed: Payload bytes the device confirmed.
    ///   - totalBytes: Payload bytes of the part.
    package init(phase: DFUPhase, part: Int, partCount: Int, bytesSent: Int, bytesConfirmed: Int, totalBytes: Int) {
        self.phase = phase
        self.part = part
        self.partCount = partCount
        self.bytesSent = bytesSent
        self.bytesConfirmed = bytesConfirmed
        self.totalBytes = totalBytes
    }
}

/// Which protocol sent a part.
package enum DFUProtocol: Sendable, Hashable {
    /// Secure DFU (SDK 12–17).
    case secure
    /// Legacy DFU (SDK 4–11).
    case legacy
}

/// What the device confirmed about one part.
package struct PartConfirmation: Sendable, Equatable {
    /// What the part replaced.
    package var imageType: ImageType
    /// The protocol that sent it.
    package var dfuProtocol: DFUProtocol
    /// Payload bytes the device reported holding before it executed or validated the image.
    package var bytesConfirmed: Int
    /// The CRC-32 the device reported over those bytes (Secure DFU); legacy targets report none and confirm by
    /// answering Validate Firmware with success after checking the init packet's CRC-16.
    package var crc32: UInt32?
    /// How the device confirmed the part, so that a script can tell (issue 16).
    package var evidence: ConfirmationEvidence

    /// Creates a confirmation.
    ///
    /// - Parameters:
    ///   - imageType: What the part replaced.
    ///   - dfuProtocol: The protocol that sent it.
    ///   - bytesConfirmed: Payload bytes the device reported.
    ///   - crc32: The CRC-32 the device reported, if the protocol reports one.
    ///   - evidence: The device's message that confirmed the part.
    package init(
        imageType: ImageType, dfuProtocol: DFUProtocol, bytesConfirmed: Int, crc32: UInt32?,
        evidence: ConfirmationEvidence
    ) {
        self.imageType = imageType
        self.dfuProtocol = dfuProtocol
        self.bytesConfirmed = bytesConfirmed
        self.crc32 = crc32
        self.evidence = evidence
    }
}

/// The device's message that confirmed a part, byte for byte.
package enum ConfirmationEvidence: Sendable, Equatable {
    /// Secure DFU: the answer to this request (Calculate Checksum after the last object, or Select when the target
    /// already held the whole image) reported the part's size and this CRC-32, equal to the image's, before the
    /// last Execute succeeded. Every earlier object was checked the same way before it was executed.
    case reportedChecksum(SecureOpcode, crc32: UInt32)
    /// Legacy DFU: the target answered Validate Firmware with these bytes (`10 04 01`) after checking the image
    /// against the init packet's CRC-16, then reset on Activate Image and Reset without an error answer.
    case validateResponse([UInt8])
}

/// The result of a successful update.
package struct DFUSummary: Sendable, Equatable {
    /// One confirmation per part, in sending order.
    package var parts: [PartConfirmation]

    /// Creates a summary.
    ///
    /// - Parameter parts: One confirmation per part.
    package init(parts: [PartConfirmation]) {
        self.parts = parts
    }
}
