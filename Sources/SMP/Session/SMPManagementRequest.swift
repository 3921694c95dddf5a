/// One management command as the mcumgr-style verbs name it (`nrfloader image test HASH`, `reset`, `echo TEXT`): what
/// goes on the wire, and how its answer is read.
package enum SMPManagementRequest: Sendable, Equatable, CustomStringConvertible {
    /// OS echo of a text.
    case echo(String)
    /// OS reset; the device answers, then resets (`CONFIG_MCUMGR_GRP_OS_RESET_MS` later) and drops the link.
    case reset
    /// Image state read: every slot.
    case readImageState
    /// Image state write with `confirm: false`: mark the image with this SHA-256 TLV to be tested on the next reset.
    case testImage(hash: [UInt8])
    /// Image state write with `confirm: true`: make the image with this hash permanent, or without one, confirm the
    /// running image.
    case confirmImage(hash: [UInt8]?)
    /// Image erase of `slot`, or without one of the slot the device picks (the secondary slot, 1).
    case eraseImage(slot: Int?)

    /// The request on the wire.
    package var wire: SMPRequest {
        switch self {
        case .echo(let text): .echo(text)
        case .reset: .reset
        case .readImageState: .readImageState
        case .testImage(let hash): .writeImageState(hash: hash, confirm: false)
        case .confirmImage(let hash): .writeImageState(hash: hash, confirm: true)
        case .eraseImage(let slot?): .eraseSlot(slot)
        case .eraseImage(nil): .erase
        }
    }

    /// The request's name in messages: "device refused image test: …".
    package var description: String {
        switch self {
        case .echo: "echo"
        case .reset: "reset"
        case .readImageState: "image state read"
        case .testImage: "image test"
        case .confirmImage: "image confirm"
        case .eraseImage: "image erase"
        }
    }

    /// Whether the request changes the device's image state, so that a copy sent again after a lost answer may meet
    /// the state the first one already set.
    var changesImageState: Bool {
        switch self {
        case .testImage, .confirmImage: true
        case .echo, .reset, .readImageState, .eraseImage: false
        }
    }

    /// Reads a successful answer's body.
    ///
    /// - Parameter body: The body, already checked for `rc` and `err`.
    /// - Returns: The reply; ``SMPManagementReply/reset(answered:)`` is not produced here (a reset ends with the link).
    /// - Throws: ``SMPFrameError`` when a field the reply needs is missing or malformed.
    func reply(from body: CBORValue) throws(SMPFrameError) -> SMPManagementReply {
        switch self {
        case .echo:
            return .echoed(try EchoResponse(body: body).text)
        case .readImageState:
            return .imageState(try ImageStateResponse(body: body))
        case .testImage, .confirmImage:
            // Zephyr answers a state write with the new state (`img_mgmt_state_write` ends in a state read); MCUboot's
            // serial recovery and older servers answer `{}` or `{"rc": 0}`.
            guard body["images"] != nil else { return .stateWritten(nil) }
            return .stateWritten(try ImageStateResponse(body: body))
        case .eraseImage:
            return .erased
        case .reset:
            preconditionFailure("a reset's reply comes with the link's loss, not from its answer")
        }
    }
}

/// What the device answered, read.
package enum SMPManagementReply: Sendable, Equatable {
    /// The text the device echoed.
    case echoed(String)
    /// The device reset: the link dropped after the request. `answered` says whether its answer came first (the
    /// device may reset before the answer reaches the host).
    case reset(answered: Bool)
    /// The image state the device reported.
    case imageState(ImageStateResponse)
    /// A state write was accepted; the state the device answered with, when it sent one.
    case stateWritten(ImageStateResponse?)
    /// The slot was erased.
    case erased
}
