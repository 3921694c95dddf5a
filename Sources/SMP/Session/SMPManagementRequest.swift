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
    /// A request of another group (OS beyond echo and reset, statistics, settings, file system, shell, enumeration,
    /// Zephyr basic); its answer's body is the reply, read by the caller.
    case group(SMPGroupRequest)

    /// The group id of the request's header.
    package var groupID: UInt16 {
        if case .group(let request) = self { return request.group }
        return wire.command.group.rawValue
    }

    /// The command id of the request's header.
    package var commandID: UInt8 {
        if case .group(let request) = self { return request.id }
        return wire.command.id
    }

    /// Whether sending the request again after a lost answer is harmless.
    package var isRepeatable: Bool {
        if case .group(let request) = self { return request.isRepeatable }
        return true
    }

    /// The request as a frame.
    ///
    /// - Parameters:
    ///   - sequence: The sequence number the answer will echo.
    ///   - version: The protocol version to ask in.
    /// - Returns: The frame.
    package func frame(sequence: UInt8, version: SMPVersion) -> SMPFrame {
        if case .group(let request) = self { return request.frame(sequence: sequence, version: version) }
        return wire.frame(sequence: sequence, version: version)
    }

    /// The request on the wire (an image or OS request; ``group(_:)`` builds its own frame).
    var wire: SMPRequest {
        switch self {
        case .echo(let text): .echo(text)
        case .reset: .reset
        case .readImageState: .readImageState
        case .testImage(let hash): .writeImageState(hash: hash, confirm: false)
        case .confirmImage(let hash): .writeImageState(hash: hash, confirm: true)
        case .eraseImage(let slot?): .eraseSlot(slot)
        case .eraseImage(nil): .erase
        case .group(let request): preconditionFailure("\(request) has no SMPRequest form")
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
        case .group(let request): request.name
        }
    }

    /// Whether the request changes the device's image state: a copy sent again after a lost answer may meet the state
    /// the first one already set, and the change is checked by a fresh state read.
    var changesImageState: Bool {
        switch self {
        case .testImage, .confirmImage, .eraseImage: true
        case .echo, .reset, .readImageState, .group: false
        }
    }

    /// What a fresh state read shows where it does not show this request's change; `nil` when it shows it.
    ///
    /// - test: the image is pending (MCUboot swaps to it on the next reset);
    /// - confirm with a hash: the image runs confirmed, or is pending permanently;
    /// - confirm without one: image 0's running slot is confirmed;
    /// - erase: the slot (by default image 0's secondary) holds no image.
    ///
    /// - Parameter state: The state read after the device accepted the request.
    /// - Returns: The slot as it stands, in words, or `nil`.
    func unappliedChange(in state: ImageStateResponse) -> String? {
        func describe(_ slot: ImageSlotState) -> String {
            let image = state.slots.contains { $0.image != 0 } ? "image \(slot.image) " : ""
            return "\(image)slot \(slot.slot) \(slot.flagsDescription)"
        }
        switch self {
        case .testImage(let hash):
            guard let slot = state.slots.first(where: { $0.hash == hash }) else { return "no slot holding the image" }
            return slot.isPending ? nil : "\(describe(slot)), not pending"
        case .confirmImage(let hash?):
            guard let slot = state.slots.first(where: { $0.hash == hash }) else { return "no slot holding the image" }
            return (slot.isActive && slot.isConfirmed) || (slot.isPending && slot.isPermanent)
                ? nil : "\(describe(slot)), neither confirmed nor pending permanently"
        case .confirmImage(nil):
            guard let slot = state.slots.first(where: { $0.image == 0 && $0.isActive }) else {
                return "no running image"
            }
            return slot.isConfirmed ? nil : "\(describe(slot)), not confirmed"
        case .eraseImage(let number):
            let erased = number ?? 1
            guard let slot = state.slots.first(where: { $0.image == erased / 2 && $0.slot == erased % 2 }) else {
                return nil
            }
            return "\(describe(slot)) still holding version \(slot.version)"
        case .echo, .reset, .readImageState, .group:
            preconditionFailure("\(self) changes no image state")
        }
    }

    /// The reply of a state change that a fresh read confirmed.
    ///
    /// - Parameter state: The fresh state.
    /// - Returns: The reply.
    func verifiedReply(_ state: ImageStateResponse) -> SMPManagementReply {
        switch self {
        case .testImage, .confirmImage: .stateWritten(state)
        case .eraseImage: .erased
        case .echo, .reset, .readImageState, .group: preconditionFailure("\(self) changes no image state")
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
        case .group:
            return .answered(body)
        case .testImage, .confirmImage, .eraseImage:
            preconditionFailure("a state change's reply comes from the state read after it, not from its answer")
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
    /// A state write was accepted, and a fresh read shows it: the state that read reported.
    case stateWritten(ImageStateResponse)
    /// The slot was erased, and a fresh read shows it empty.
    case erased
    /// The body of the answer to a ``SMPManagementRequest/group(_:)`` request, checked for `rc` and `err`.
    case answered(CBORValue)
}
