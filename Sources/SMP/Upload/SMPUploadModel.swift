/// What the SMP upload machine asks its driver to do, in order.
package import DeviceLink

package enum SMPAction: Sendable, Equatable {
    /// Connect (again) to the device.
    case connect
    /// Send one request frame; the transport splits it into writes of at most ATT MTU − 3 bytes.
    case send([UInt8])
    /// Drop the link.
    case disconnect
    /// Start (or restart) a timer that fires at `deadline` (session time).
    case startTimer(SMPTimer, deadline: Duration)
    /// Cancel a timer.
    case cancelTimer(SMPTimer)
    /// Report progress.
    case progress(SMPProgress)
    /// A line of detail for `--verbose` and `--json` logs.
    case log(String)
    /// The update ended as the device's state shows.
    case finish(SMPUploadResult)
    /// The update failed.
    case fail(SMPUploadError)
}

/// The machine's timers.
package enum SMPTimer: Sendable, Equatable, Hashable {
    /// The oldest request in flight is due an answer.
    case response
    /// A connection attempt.
    case connection
    /// The device answered reset but the link is still up.
    case resetDisconnect
}

/// Where an SMP update stands.
package enum SMPPhase: String, Sendable, Equatable {
    /// Connecting or reconnecting.
    case connecting
    /// Reading parameters and image state.
    case inspecting
    /// Sending the image.
    case uploading
    /// Marking the image for test or confirming it.
    case settingState = "setting state"
    /// Waiting for the device to reset and come back.
    case resetting
    /// Reading the state after the reset.
    case verifying
}

/// Progress of an SMP upload, for the image being worked on.
package struct SMPProgress: Sendable, Equatable {
    /// The phase.
    package var phase: SMPPhase
    /// Image bytes handed to the link.
    package var bytesSent: Int
    /// Image bytes the device reported holding (its `off`).
    package var bytesConfirmed: Int
    /// The image's size.
    package var totalBytes: Int
    /// The image number the report is about (the upload's `image` field).
    package var image: Int
    /// Its place in the update, from 1.
    package var part: Int
    /// How many images the update sends.
    package var parts: Int

    /// Creates a report about the only image of an update, image 0.
    package init(phase: SMPPhase, bytesSent: Int, bytesConfirmed: Int, totalBytes: Int) {
        self.init(
            phase: phase, bytesSent: bytesSent, bytesConfirmed: bytesConfirmed, totalBytes: totalBytes, image: 0,
            part: 1, parts: 1)
    }

    /// Creates a report about one image of several.
    ///
    /// - Parameters:
    ///   - phase: The phase.
    ///   - bytesSent: Image bytes handed to the link.
    ///   - bytesConfirmed: Image bytes the device holds.
    ///   - totalBytes: The image's size.
    ///   - image: The image number.
    ///   - part: Its place in the update, from 1.
    ///   - parts: How many images the update sends.
    package init(
        phase: SMPPhase, bytesSent: Int, bytesConfirmed: Int, totalBytes: Int, image: Int, part: Int, parts: Int
    ) {
        self.phase = phase
        self.bytesSent = bytesSent
        self.bytesConfirmed = bytesConfirmed
        self.totalBytes = totalBytes
        self.image = image
        self.part = part
        self.parts = parts
    }
}

/// One image an update sends: the firmware model of an SMP update from the input to the wire.
///
/// Loading a signed MCUboot image or an nRF Connect SDK package makes one of these per image; the upload machine
/// sends them as they are, and the begin and result events name them by ``name`` and ``version``.
package struct SMPImageUpload: Sendable, Equatable {
    /// The image number to store it under (0: the application; 1: the nRF5340 network core, …).
    package var image: Int
    /// The signed image file, sent byte for byte.
    package var bytes: [UInt8]
    /// Its SHA-256 TLV (`MCUbootImage.storedHash`): the hash the device's image state names it by.
    package var hash: [UInt8]
    /// SHA-256 of the whole file: the first chunk's `sha`, which lets the device resume an interrupted upload.
    package var fileSHA256: [UInt8]
    /// The file's name: the package entry's, or the lone image's path.
    package var name: String
    /// The version its header declares (`1.2.3+4`).
    package var version: String
    /// Whether the file carries an image trailer, so that it is exactly one slot long (`imgtool --pad`/`--confirm`).
    package var fillsSlot: Bool

    /// Describes an image.
    ///
    /// - Parameters:
    ///   - image: The image number.
    ///   - bytes: The file.
    ///   - hash: Its SHA-256 TLV.
    ///   - fileSHA256: SHA-256 of the file.
    ///   - name: The file's name.
    ///   - version: Its header's version.
    ///   - fillsSlot: Whether it is padded to its slot with a trailer.
    package init(
        image: Int, bytes: [UInt8], hash: [UInt8], fileSHA256: [UInt8], name: String = "", version: String = "",
        fillsSlot: Bool = false
    ) {
        self.image = image
        self.bytes = bytes
        self.hash = hash
        self.fileSHA256 = fileSHA256
        self.name = name
        self.version = version
        self.fillsSlot = fillsSlot
    }
}

/// How one image of the update ended, as the device's state shows it.
package struct SMPImageResult: Sendable, Equatable {
    /// The image number.
    package var image: Int
    /// How it stands.
    package var outcome: SMPUploadResult.Outcome
    /// The slot that holds it, as the device reported it.
    package var slot: ImageSlotState
    /// Its bytes the device acknowledged in this session (0 when it already held the image).
    package var bytesUploaded: Int

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - image: The image number.
    ///   - outcome: How it stands.
    ///   - slot: The slot holding it.
    ///   - bytesUploaded: Bytes acknowledged in this session.
    package init(image: Int, outcome: SMPUploadResult.Outcome, slot: ImageSlotState, bytesUploaded: Int) {
        self.image = image
        self.outcome = outcome
        self.slot = slot
        self.bytesUploaded = bytesUploaded
    }
}

/// What the device's own image state showed at the end.
package struct SMPUploadResult: Sendable, Equatable {
    /// How the image stands, in the device's words.
    package enum Outcome: String, Sendable, Equatable {
        /// Running and confirmed.
        case confirmed
        /// Running in test mode: MCUboot reverts it on the next reset unless it is confirmed.
        case testing
        /// In the secondary slot, pending a permanent swap on the next reset (`upload-only` of an image signed with
        /// `imgtool --confirm`).
        case pendingPermanent = "pending permanent"
        /// In the secondary slot, pending a test swap on the next reset.
        case pendingTest = "pending test"
        /// In the secondary slot, with no swap requested.
        case uploaded
    }

    /// How the image stands (with several images: the first one's; ``images`` has each).
    package var outcome: Outcome
    /// The slot that holds it, as the device reported it (with several images: the first one's).
    package var slot: ImageSlotState
    /// Image bytes the device acknowledged in this session (0 when it already held the image), all images together.
    package var bytesUploaded: Int
    /// Each image's result, in the order they were given.
    package var images: [SMPImageResult]
    /// The MCUmgr parameters used (the device's, or Zephyr's defaults when it has none).
    package var parameters: MCUmgrParameters
    /// Whether the device answered MCUmgr parameters.
    package var parametersReported: Bool
    /// The largest chunk of image data sent in one request.
    package var chunkSize: Int
    /// The most requests that were in flight at once.
    package var requestsInFlight: Int
    /// Link losses recovered from.
    package var reconnects: Int
    /// Whether the device took the images in MCUboot's serial recovery (straight to the primary slot, no test).
    package var viaSerialRecovery = false
}

/// Why an SMP update failed, saying who failed (style §14).
package enum SMPUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device answered a request with an error.
    case rejected(SMPCommand, SMPDeviceError)
    /// The device sent something that is not a valid answer.
    case protocolViolation(String)
    /// The device's image state does not show what the update needs.
    case unexpectedState(String)
    /// An answer did not come in time.
    case timedOut(waitingFor: String, limit: Duration)
    /// The transport failed (connect, write, or the link).
    case transport(LinkError)
    /// The link dropped again and again; `lastCause` is why the last one ended.
    case reconnectsExhausted(attempts: Int, lastCause: String)
    /// A request was sent `sends` times in a row and never answered within `limit` (the device drops it, or its
    /// answer); `remedy` says what to check.
    case unanswered(String, sends: Int, limit: Duration, remedy: String)
    /// The device answered, again and again, without taking the upload further.
    case stalled(String)
    /// The user interrupted.
    case cancelled

    package var description: String {
        switch self {
        case .rejected(let command, let error): "device refused \(command): \(error)"
        case .protocolViolation(let what): "device violated SMP: \(what)"
        case .unexpectedState(let what): "device state: \(what)"
        case .stalled(let what): "upload made no progress: \(what)"
        case .timedOut(let what, let limit): "timed out after \(limit) waiting for \(what)"
        case .transport(let failure): "transport failed: \(failure)"
        case .reconnectsExhausted(let attempts, let lastCause):
            "link lost again after \(attempts) reconnects (the last: \(lastCause))"
        case .unanswered(let what, let sends, let limit, let remedy):
            "no answer to \(what) after \(sends) sends, \(limit) each: \(remedy)"
        case .cancelled: "cancelled"
        }
    }
}
