/// The sans-IO DFU state machine: events in, ``DFUAction``s out (style §19–21).
///
/// The controller never reads a clock, sleeps or touches Bluetooth. Its driver (the adapter) feeds it events with
/// the time since the session started and performs the returned actions in order. See the DocC page for the
/// state transition table and the adapter contract.
public struct DFUController: Sendable {
    /// The top-level states; per-protocol details live in ``SecureDFU`` and ``LegacyDFU``.
    enum State: Equatable, Sendable {
        /// Created; waiting for `start(at:)`.
        case idle
        /// Waiting for connection and service discovery.
        case connecting(ConnectionRequest, Arrival)
        /// Waiting for the legacy Version characteristic's value.
        case readingVersion(Set<DFUCharacteristic>, Arrival)
        /// Waiting for the buttonless answer to Set Advertisement Name.
        case namingBootloader(ButtonlessVariant)
        /// Waiting for the buttonless answer to Enter Bootloader.
        case enteringBootloader(ButtonlessVariant)
        /// Waiting for the application to acknowledge the legacy jump `01 04` (or drop the link).
        case jumpingLegacy
        /// Running Secure DFU for the current part.
        case secure(SecureDFU)
        /// Running legacy DFU for the current part.
        case legacy(LegacyDFU)
        /// Waiting for the target to drop the link, then connecting to the request.
        case awaitingDisconnect(ConnectionRequest, Arrival)
        /// Waiting for the Abort or Reset write to complete.
        case cancelling
        /// Terminal: every part was confirmed.
        case finished(DFUSummary)
        /// Terminal: the update failed or was cancelled; all further input is ignored.
        case failed(DFUError)
    }

    /// How the controller reached the device it is connecting to.
    enum Arrival: Equatable, Sendable {
        /// Straight from the user's address, after a part, or after link loss.
        case direct
        /// After asking the application to jump; finding the application again is an error.
        case afterJump
    }

    /// The two buttonless characteristics of Secure DFU applications.
    enum ButtonlessVariant: Equatable, Sendable {
        /// 8EC90003: the bootloader advertises at the address with its last byte + 1.
        case withoutBonds
        /// 8EC90004: the bootloader keeps the address and the bond.
        case withBonds

        var characteristic: DFUCharacteristic {
            self == .withoutBonds ? .buttonlessWithoutBonds : .buttonlessWithBonds
        }
    }

    /// The firmware being sent.
    public let firmware: DFUFirmware
    /// The policy.
    public let configuration: DFUConfiguration
    /// The address the user gave: the application's or the bootloader's.
    public let target: BluetoothAddress

    private(set) var state: State = .idle
    /// Confirmations of the parts done; its count is the index of the current part.
    private var confirmations: [PartConfirmation] = []
    /// Reconnects after link loss so far.
    private var reconnects = 0
    /// The device the controller last connected to, for reconnects after link loss.
    private var lastRequest: ConnectionRequest

    /// Creates a controller for one update of one device.
    ///
    /// - Parameters:
    ///   - firmware: The parts to send.
    ///   - target: The device's address as the user gave it.
    ///   - configuration: The policy; the defaults document their sources.
    public init(firmware: DFUFirmware, target: BluetoothAddress, configuration: DFUConfiguration = DFUConfiguration()) {
        self.firmware = firmware
        self.target = target
        self.configuration = configuration
        self.lastRequest = ConnectionRequest(address: target)
    }

    /// Whether the controller reached a terminal state and ignores all input.
    public var isFinished: Bool {
        switch state {
        case .finished, .failed: true
        case .idle, .connecting, .readingVersion, .namingBootloader, .enteringBootloader, .jumpingLegacy, .secure,
            .legacy, .awaitingDisconnect, .cancelling:
            false
        }
    }

    /// The name of the top-level state, as the DocC transition table writes it.
    var stateName: String {
        switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .readingVersion: "readingVersion"
        case .namingBootloader: "namingBootloader"
        case .enteringBootloader: "enteringBootloader"
        case .jumpingLegacy: "jumpingLegacy"
        case .secure: "secure"
        case .legacy: "legacy"
        case .awaitingDisconnect: "awaitingDisconnect"
        case .cancelling: "cancelling"
        case .finished: "finished"
        case .failed: "failed"
        }
    }

    private var context: PartContext {
        PartContext(
            part: firmware.parts[confirmations.count], number: confirmations.count + 1, count: firmware.parts.count,
            configuration: configuration)
    }

    // MARK: - Inputs

    /// Starts the update by connecting to the target.
    ///
    /// - Parameter now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func start(at now: Duration) -> [DFUAction] {
        switch state {
        case .idle:
            return connect(ConnectionRequest(address: target), .direct, at: now)
        case .connecting, .readingVersion, .namingBootloader, .enteringBootloader, .jumpingLegacy, .secure, .legacy,
            .awaitingDisconnect, .cancelling, .finished, .failed:
            preconditionFailure("start(at:) called twice (state \(state))")
        }
    }

    /// Reports that the requested connection is up and services are discovered.
    ///
    /// - Parameters:
    ///   - mtu: The negotiated ATT MTU.
    ///   - characteristics: The DFU characteristics found (fresh discovery, not a stale cache).
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func connected(mtu: Int, characteristics: Set<DFUCharacteristic>, at now: Duration) -> [DFUAction] {
        switch state {
        case .connecting(_, let arrival):
            return [.cancelTimer(.connection)] + identify(mtu: mtu, characteristics, arrival, at: now)
        case .idle, .readingVersion, .namingBootloader, .enteringBootloader, .jumpingLegacy, .secure, .legacy,
            .awaitingDisconnect, .cancelling:
            preconditionFailure("connected(mtu:characteristics:at:) without a connect action (state \(state))")
        case .finished, .failed:
            // Terminal: a connection that completes after the end is the adapter's to close.
            return []
        }
    }

    /// Reports a notification or indication.
    ///
    /// - Parameters:
    ///   - notification: The value.
    ///   - characteristic: The characteristic that sent it.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func receive(notification: [UInt8], from characteristic: DFUCharacteristic, at now: Duration)
        -> [DFUAction]
    {
        let unsolicited = DFUError.protocolViolation(.unsolicited(characteristic, received: notification))
        switch state {
        case .secure(var machine):
            guard characteristic == .secureControlPoint else { return fail(unsolicited) }
            let output = machine.receive(notification, at: now)
            state = .secure(machine)
            return apply(output, at: now)
        case .legacy(var machine):
            guard characteristic == .legacyControlPoint else { return fail(unsolicited) }
            let output = machine.receive(notification, at: now)
            state = .legacy(machine)
            return apply(output, at: now)
        case .namingBootloader(let variant), .enteringBootloader(let variant):
            guard characteristic == variant.characteristic else { return fail(unsolicited) }
            return buttonlessAnswered(notification, variant, at: now)
        case .cancelling:
            // The answer to the request cancel interrupted, or to Abort: either way the cancel is done.
            return cancelled()
        case .idle, .connecting, .readingVersion, .jumpingLegacy, .awaitingDisconnect:
            return fail(unsolicited)
        case .finished, .failed:
            // Terminal: ignores all input (style §21).
            return []
        }
    }

    /// Reports the value of a ``DFUAction/read(_:)``.
    ///
    /// - Parameters:
    ///   - value: The characteristic's value.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func readCompleted(_ value: [UInt8], at now: Duration) -> [DFUAction] {
        switch state {
        case .readingVersion(let characteristics, let arrival):
            guard value.count == 2 else { return fail(.protocolViolation(.malformedVersion(received: value))) }
            let version = UInt16(value[1]) << 8 | UInt16(value[0])
            if version == 0x0001 {
                guard arrival == .direct else { return fail(.noDFUService(found: characteristics.sorted)) }
                // Application with the legacy buttonless service: Start DFU with type 0x04 makes it jump (§1.11).
                state = .jumpingLegacy
                return [
                    .cancelTimer(.response), context.progress(.enteringBootloader),
                    .write(.legacyControlPoint, [LegacyOpcode.startDFU.rawValue, 0x04]),
                ]
            }
            guard characteristics.contains(.legacyPacket) else {
                return fail(.noDFUService(found: characteristics.sorted))
            }
            return [.cancelTimer(.response), .log("legacy dfu version \(version >> 8).\(version & 0xFF)")]
                + beginLegacy(.versioned(version), at: now)
        case .cancelling:
            return cancelled()
        case .idle, .connecting, .namingBootloader, .enteringBootloader, .jumpingLegacy, .secure, .legacy,
            .awaitingDisconnect:
            preconditionFailure("readCompleted(_:at:) without a read action (state \(state))")
        case .finished, .failed:
            return []
        }
    }

    /// Reports that a write with response or a notification enable completed.
    ///
    /// - Parameter now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func writeCompleted(at now: Duration) -> [DFUAction] {
        switch state {
        case .legacy(let machine):
            guard let confirmation = machine.activationAcknowledged() else {
                // Requests with a response notification complete on the notification, not on the write.
                return []
            }
            return partComplete(confirmation, at: now)
        case .jumpingLegacy:
            state = .awaitingDisconnect(bootloaderAfterLegacyJump, .afterJump)
            return [.startTimer(.disconnection, deadline: now + configuration.disconnectionTimeout)]
        case .cancelling:
            return cancelled()
        case .connecting, .readingVersion, .namingBootloader, .enteringBootloader, .secure, .awaitingDisconnect:
            // These states wait for a notification, a read or the link; the write's acknowledgement carries
            // nothing they need.
            return []
        case .idle:
            preconditionFailure("writeCompleted(at:) before start (state \(state))")
        case .finished, .failed:
            return []
        }
    }

    /// Reports that a timer fired.
    ///
    /// - Parameters:
    ///   - timer: The timer.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func timerFired(_ timer: DFUTimer, at now: Duration) -> [DFUAction] {
        switch (state, timer) {
        case (.connecting, .connection):
            return fail(.timedOut(.connection, limit: configuration.connectionTimeout))
        case (.readingVersion, .response):
            return fail(.timedOut(.versionRead, limit: configuration.responseTimeout))
        case (.namingBootloader, .response):
            return fail(.timedOut(.buttonlessResponse(.setAdvertisementName), limit: configuration.responseTimeout))
        case (.enteringBootloader, .response):
            return fail(.timedOut(.buttonlessResponse(.enterBootloader), limit: configuration.responseTimeout))
        case (.secure(var machine), .objectPreparation):
            guard let output = machine.preparationElapsed(at: now) else { return [] }
            state = .secure(machine)
            return apply(output, at: now)
        case (.secure(let machine), .response):
            return fail(.timedOut(machine.awaited, limit: configuration.responseTimeout))
        case (.legacy(let machine), .response):
            let step = machine.awaited
            let limit =
                step == .legacyResponse(.startDFU) ? configuration.legacyStartTimeout : configuration.responseTimeout
            return fail(.timedOut(step, limit: limit))
        case (.awaitingDisconnect, .disconnection):
            // The target kept the link; drop it ourselves and go on when the adapter reports the disconnect.
            return [.disconnect]
        case (.cancelling, .response):
            return cancelled()
        case (.idle, _), (.connecting, _), (.readingVersion, _), (.namingBootloader, _), (.enteringBootloader, _),
            (.jumpingLegacy, _), (.secure, _), (.legacy, _), (.awaitingDisconnect, _), (.cancelling, _):
            // A timer this state does not arm: it raced its cancellation in the adapter and is stale.
            return []
        case (.finished, _), (.failed, _):
            return []
        }
    }

    /// Asks the controller to stop the update cleanly.
    ///
    /// - Parameter now: Time since the session started.
    /// - Returns: The actions to perform, in order: an Abort (Secure) or Reset (legacy) when a bootloader is
    ///   mid-update, so that the device stays recoverable.
    public mutating func cancel(at now: Duration) -> [DFUAction] {
        switch state {
        case .secure:
            state = .cancelling
            return [
                .cancelTimer(.objectPreparation), .write(.secureControlPoint, SecureRequest.abort.encoded),
                .startTimer(.response, deadline: now + configuration.responseTimeout),
            ]
        case .legacy:
            state = .cancelling
            return [
                .write(.legacyControlPoint, [LegacyOpcode.reset.rawValue]),
                .startTimer(.response, deadline: now + configuration.responseTimeout),
            ]
        case .idle:
            state = .failed(.cancelled)
            return [.fail(.cancelled)]
        case .connecting, .readingVersion, .namingBootloader, .enteringBootloader, .jumpingLegacy, .awaitingDisconnect:
            return cancelled()
        case .cancelling, .finished, .failed:
            // Already stopping or stopped.
            return []
        }
    }

    /// Reports that the link dropped.
    ///
    /// - Parameter now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func transportDisconnected(at now: Duration) -> [DFUAction] {
        switch state {
        case .awaitingDisconnect(let next, let arrival):
            return [.cancelTimer(.disconnection)] + connect(next, arrival, at: now)
        case .jumpingLegacy:
            // The application jumped before acknowledging the write (§1.11).
            return connect(bootloaderAfterLegacyJump, .afterJump, at: now)
        case .enteringBootloader(let variant):
            // The application reset before its indication arrived; Android treats this as success (§2.10).
            return [.cancelTimer(.response)] + connect(bootloaderAfterButtonless(variant), .afterJump, at: now)
        case .legacy(let machine):
            if let confirmation = machine.activationAcknowledged() { return partComplete(confirmation, at: now) }
            return reconnectAfterLinkLoss(at: now)
        case .secure, .readingVersion, .namingBootloader:
            return reconnectAfterLinkLoss(at: now)
        case .connecting:
            return fail(.transport(TransportFailure(operation: .link, cause: "disconnected during connection")))
        case .cancelling:
            return cancelled()
        case .idle:
            preconditionFailure("transportDisconnected(at:) before start")
        case .finished, .failed:
            return []
        }
    }

    /// Reports that a transport operation failed.
    ///
    /// - Parameters:
    ///   - failure: What failed, with the transport's own error.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    public mutating func transportFailed(_ failure: TransportFailure, at now: Duration) -> [DFUAction] {
        switch state {
        case .legacy(let machine):
            // Activate and Reset: the target may reset before it acknowledges (§1.10 b step 7).
            if let confirmation = machine.activationAcknowledged() { return partComplete(confirmation, at: now) }
            return fail(.transport(failure))
        case .jumpingLegacy:
            return connect(bootloaderAfterLegacyJump, .afterJump, at: now)
        case .cancelling:
            return cancelled()
        case .connecting, .readingVersion, .namingBootloader, .enteringBootloader, .secure, .awaitingDisconnect:
            return fail(.transport(failure))
        case .idle:
            preconditionFailure("transportFailed(_:at:) before start")
        case .finished, .failed:
            return []
        }
    }

    // MARK: - Transitions

    private mutating func connect(_ request: ConnectionRequest, _ arrival: Arrival, at now: Duration) -> [DFUAction] {
        state = .connecting(request, arrival)
        lastRequest = request
        return [
            context.progress(.connecting), .connect(request),
            .startTimer(.connection, deadline: now + configuration.connectionTimeout),
        ]
    }

    private mutating func identify(
        mtu: Int, _ characteristics: Set<DFUCharacteristic>, _ arrival: Arrival, at now: Duration
    ) -> [DFUAction] {
        if characteristics.isSuperset(of: [.secureControlPoint, .securePacket]) {
            let machine = SecureDFU(context: context, mtu: mtu)
            state = .secure(machine)
            return [.enableNotifications(.secureControlPoint)] + machine.begin(at: now)
        }
        for variant in [ButtonlessVariant.withoutBonds, .withBonds]
        where characteristics.contains(variant.characteristic) {
            guard arrival == .direct else { return fail(.noDFUService(found: characteristics.sorted)) }
            return enterBootloader(variant, at: now)
        }
        if characteristics.contains(.legacyControlPoint) {
            if characteristics.contains(.legacyVersion) {
                state = .readingVersion(characteristics, arrival)
                return [
                    .enableNotifications(.legacyControlPoint), .read(.legacyVersion),
                    .startTimer(.response, deadline: now + configuration.responseTimeout),
                ]
            }
            if characteristics.contains(.legacyPacket) {
                return [.enableNotifications(.legacyControlPoint)] + beginLegacy(.v2, at: now)
            }
        }
        return fail(.noDFUService(found: characteristics.sorted))
    }

    private mutating func beginLegacy(_ generation: LegacyGeneration, at now: Duration) -> [DFUAction] {
        do {
            let (machine, actions) = try LegacyDFU.begin(context: context, generation: generation, at: now)
            state = .legacy(machine)
            return actions
        } catch {
            return fail(error)
        }
    }

    private mutating func enterBootloader(_ variant: ButtonlessVariant, at now: Duration) -> [DFUAction] {
        let characteristic = variant.characteristic
        let timer = DFUAction.startTimer(.response, deadline: now + configuration.responseTimeout)
        var actions: [DFUAction] = [context.progress(.enteringBootloader), .enableNotifications(characteristic)]
        if variant == .withoutBonds, let name = configuration.bootloaderName {
            let bytes = Array(name.utf8.prefix(20))
            state = .namingBootloader(variant)
            actions += [
                .write(characteristic, [ButtonlessOpcode.setAdvertisementName.rawValue, UInt8(bytes.count)] + bytes),
                timer,
            ]
            return actions
        }
        state = .enteringBootloader(variant)
        return actions + [.write(characteristic, [ButtonlessOpcode.enterBootloader.rawValue]), timer]
    }

    private mutating func buttonlessAnswered(_ bytes: [UInt8], _ variant: ButtonlessVariant, at now: Duration)
        -> [DFUAction]
    {
        let opcode: ButtonlessOpcode
        if case .namingBootloader = state { opcode = .setAdvertisementName } else { opcode = .enterBootloader }
        let result: ButtonlessResultCode
        do {
            result = try ButtonlessResultCode.decode(bytes, answering: opcode)
        } catch {
            return fail(.protocolViolation(error))
        }
        guard result == .success else { return fail(.rejected(.buttonless(opcode, result))) }
        switch opcode {
        case .setAdvertisementName:
            state = .enteringBootloader(variant)
            return [
                .write(variant.characteristic, [ButtonlessOpcode.enterBootloader.rawValue]),
                .startTimer(.response, deadline: now + configuration.responseTimeout),
            ]
        case .enterBootloader, .response:
            state = .awaitingDisconnect(bootloaderAfterButtonless(variant), .afterJump)
            return [
                .cancelTimer(.response),
                .startTimer(.disconnection, deadline: now + configuration.disconnectionTimeout),
            ]
        }
    }

    /// The bootloader's address after a Secure buttonless jump (§2.10).
    private func bootloaderAfterButtonless(_ variant: ButtonlessVariant) -> ConnectionRequest {
        switch variant {
        case .withoutBonds:
            ConnectionRequest(
                address: lastRequest.address.incrementedLeastSignificantByte,
                advertisedName: configuration.bootloaderName.map {
                    String(decoding: Array($0.utf8.prefix(20)), as: UTF8.self)
                })
        case .withBonds:
            ConnectionRequest(address: lastRequest.address)
        }
    }

    /// After the legacy jump the bootloader keeps the address when the application handed over peer data, and
    /// uses the last byte + 1 when it did not (SDK 6.1, §1.11).
    private var bootloaderAfterLegacyJump: ConnectionRequest {
        ConnectionRequest(
            address: lastRequest.address, alternativeAddress: lastRequest.address.incrementedLeastSignificantByte)
    }

    private mutating func apply(_ output: MachineOutput, at now: Duration) -> [DFUAction] {
        switch output {
        case .running(let actions): actions
        case .partComplete(let actions, let confirmation): actions + partComplete(confirmation, at: now)
        case .failed(let error): fail(error)
        }
    }

    private mutating func partComplete(_ confirmation: PartConfirmation, at now: Duration) -> [DFUAction] {
        confirmations.append(confirmation)
        let done = DFUAction.log(
            "part \(confirmations.count) of \(firmware.parts.count) (\(confirmation.imageType)) confirmed: "
                + "\(confirmation.bytesConfirmed) bytes" + (confirmation.crc32.map { ", crc \(hex32($0))" } ?? ""))
        guard confirmations.count < firmware.parts.count else {
            let summary = DFUSummary(parts: confirmations)
            state = .finished(summary)
            return [.cancelTimer(.response), done, .disconnect, .finish(summary)]
        }
        // The target resets into the new bootloader or SoftDevice, which advertises at the same address. A legacy
        // bootloader reached at the application's address (peer data) may come back at the last byte + 1.
        var next = ConnectionRequest(address: lastRequest.address)
        if confirmation.dfuProtocol == .legacy, lastRequest.address == target {
            next.alternativeAddress = target.incrementedLeastSignificantByte
        }
        state = .awaitingDisconnect(next, .direct)
        return [
            .cancelTimer(.response), done,
            .startTimer(.disconnection, deadline: now + configuration.disconnectionTimeout),
        ]
    }

    private mutating func reconnectAfterLinkLoss(at now: Duration) -> [DFUAction] {
        guard reconnects < configuration.maximumReconnects else {
            return fail(.reconnectsExhausted(attempts: reconnects))
        }
        reconnects += 1
        let note = DFUAction.log(
            "link lost; reconnecting (\(reconnects) of \(configuration.maximumReconnects))"
                + (isLegacy ? ", legacy dfu restarts the part" : ""))
        return [.cancelTimer(.response), .cancelTimer(.objectPreparation), note]
            + connect(lastRequest, .direct, at: now)
    }

    private var isLegacy: Bool {
        if case .legacy = state { true } else { false }
    }

    private mutating func cancelled() -> [DFUAction] {
        state = .failed(.cancelled)
        return [.disconnect, .fail(.cancelled)]
    }

    private mutating func fail(_ error: DFUError) -> [DFUAction] {
        // A legacy bootloader is told to reset so that it does not wait for the rest of the update (§1.10 b, err).
        let reset: [DFUAction] =
            if case .legacy = state { [.write(.legacyControlPoint, [LegacyOpcode.reset.rawValue])] } else { [] }
        state = .failed(error)
        return reset + [.disconnect, .fail(error)]
    }
}

extension Set<DFUCharacteristic> {
    /// The characteristics in declaration order, for stable error messages.
    fileprivate var sorted: [DFUCharacteristic] {
        DFUCharacteristic.allCases.filter { contains($0) }
    }
}
