/// The sans-IO DFU state machine: events in, `DFUAction`s out (style §19–21).
///
/// The controller never reads a clock, sleeps or touches Bluetooth. Its driver (the adapter) feeds it events with
/// the time since the session started and performs the returned actions in order. See the DocC page for the
/// state transition table and the adapter contract.
package import DeviceLink

package struct DFUController: Sendable {
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
    package let firmware: DFUFirmware
    /// The policy.
    package let configuration: DFUConfiguration
    /// The address the user gave: the application's or the bootloader's.
    package let target: BluetoothAddress

    private(set) var state: State = .idle
    /// Confirmations of the parts done; its count is the index of the current part.
    private var confirmations: [PartConfirmation] = []
    /// Reconnects in a row (after link loss, a missing answer or a legacy restart) since the last progress.
    private var reconnects = 0
    /// The furthest the target executed the current part's data objects on any connection (Secure DFU): a connection
    /// is progress only if it executes past this, so a target that keeps taking the same objects again (an Execute
    /// that never takes effect, a Select that falls back after every reconnect) spends the reconnect budget.
    private var executedMark = 0
    /// Whether a connection to the device ever succeeded: a device that vanishes afterwards is a temporary
    /// failure, one never reached is unavailable.
    package private(set) var deviceWasReached = false
    /// The device the controller last connected to, for reconnects after link loss.
    private var lastRequest: ConnectionRequest
    /// The protocol of the bootloader found last, which decides the init packets sent when the firmware has
    /// variants; `nil` before any bootloader was found.
    private var selectedProtocol: DFUProtocol?
    /// The address of the device connected last: the request's address or its alternative.
    private var connectedAddress: BluetoothAddress

    /// Creates a controller for one update of one device.
    ///
    /// - Parameters:
    ///   - firmware: The parts to send.
    ///   - target: The device's address as the user gave it.
    ///   - configuration: The policy; the defaults document their sources.
    package init(firmware: DFUFirmware, target: BluetoothAddress, configuration: DFUConfiguration = DFUConfiguration())
    {
        self.firmware = firmware
        self.target = target
        self.configuration = configuration
        self.lastRequest = ConnectionRequest(address: target)
        self.connectedAddress = target
    }

    /// Whether the controller reached a terminal state and ignores all input.
    package var isFinished: Bool {
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
        let parts = selectedProtocol.flatMap { firmware.parts(for: $0) } ?? firmware.parts
        return PartContext(
            part: parts[confirmations.count], number: confirmations.count + 1, count: parts.count,
            configuration: configuration)
    }

    // MARK: - Inputs

    /// Starts the update by connecting to the target.
    ///
    /// - Parameter now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    package mutating func start(at now: Duration) -> [DFUAction] {
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
    package mutating func connected(mtu: Int, characteristics: Set<DFUCharacteristic>, at now: Duration) -> [DFUAction]
    {
        connected(mtu: mtu, characteristics: characteristics, address: nil, at: now)
    }

    /// Reports that the requested connection is up and services are discovered, at this address.
    ///
    /// - Parameters:
    ///   - mtu: The negotiated ATT MTU.
    ///   - characteristics: The DFU characteristics found (fresh discovery, not a stale cache).
    ///   - address: The address connected to (the request's or its alternative); `nil` for the request's.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    package mutating func connected(
        mtu: Int, characteristics: Set<DFUCharacteristic>, address: BluetoothAddress?, at now: Duration
    ) -> [DFUAction] {
        switch state {
        case .connecting(let request, let arrival):
            deviceWasReached = true
            connectedAddress = address ?? request.address
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
    package mutating func receive(notification: [UInt8], from characteristic: DFUCharacteristic, at now: Duration)
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
        case .awaitingDisconnect:
            // The link is being dropped (after a jump, an activation, or to recover): a late answer changes nothing.
            return [.log("ignored '\(hexBytes(notification))' on \(characteristic) while the link goes down")]
        case .idle, .connecting, .readingVersion, .jumpingLegacy:
            return fail(unsolicited)
        case .finished, .failed:
            // Terminal: ignores all input (style §21).
            return []
        }
    }

    /// Reports the value of a `DFUAction/read(_:)`.
    ///
    /// - Parameters:
    ///   - value: The characteristic's value.
    ///   - now: Time since the session started.
    /// - Returns: The actions to perform, in order.
    package mutating func readCompleted(_ value: [UInt8], at now: Duration) -> [DFUAction] {
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
    package mutating func writeCompleted(at now: Duration) -> [DFUAction] {
        switch state {
        case .legacy:
            // Requests with a response notification complete on the notification, not on the write; Activate and
            // Reset completes when the target resets (the link drops), never on its write's acknowledgement.
            return []
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
    package mutating func timerFired(_ timer: DFUTimer, at now: Duration) -> [DFUAction] {
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
        case (.secure(var machine), .response):
            if let output = machine.receiptLate(at: now) ?? machine.responseLate(at: now) {
                state = .secure(machine)
                return apply(output, at: now)
            }
            // A lost request or answer: a new connection resumes from what the target holds (§2.8).
            let error = DFUError.timedOut(machine.awaited, limit: configuration.responseTimeout)
            return recover(after: error, because: "\(error)", at: now)
        case (.legacy(var machine), .response):
            let output = machine.responseLate(at: now)
            state = .legacy(machine)
            return apply(output, at: now)
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
    package mutating func cancel(at now: Duration) -> [DFUAction] {
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
    package mutating func transportDisconnected(at now: Duration) -> [DFUAction] {
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
            // The target resets to activate the image it validated (§1.10 b step 7).
            if let confirmation = machine.activationAcknowledged() { return partComplete(confirmation, at: now) }
            return recover(
                after: .reconnectsExhausted(attempts: reconnects), because: "link lost", at: now, linkIsDown: true)
        case .secure, .readingVersion, .namingBootloader:
            return recover(
                after: .reconnectsExhausted(attempts: reconnects), because: "link lost", at: now, linkIsDown: true)
        case .connecting:
            let failure = TransportFailure(operation: .link, kind: .linkLost, cause: "disconnected during connection")
            guard deviceWasReached else { return fail(.transport(failure)) }
            return recover(after: .transport(failure), because: "\(failure)", at: now, linkIsDown: true)
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
    package mutating func transportFailed(_ failure: TransportFailure, at now: Duration) -> [DFUAction] {
        switch state {
        case .legacy(let machine):
            // Activate and Reset: the target may reset before it acknowledges (§1.10 b step 7).
            if failure.kind == .linkLost, let confirmation = machine.activationAcknowledged() {
                return partComplete(confirmation, at: now)
            }
            guard failure.kind.isLinkFailure else { return fail(.transport(failure)) }
            return recover(after: .transport(failure), because: "\(failure)", at: now)
        case .secure, .readingVersion:
            guard failure.kind.isLinkFailure else { return fail(.transport(failure)) }
            return recover(after: .transport(failure), because: "\(failure)", at: now)
        case .connecting:
            // A connection to a device reached before that drops or times out while it is set up: try again,
            // within the reconnect limit. A device not found within the connection timeout is gone: the
            // request already named every address it may use.
            guard deviceWasReached, failure.kind.isLinkFailure else { return fail(.transport(failure)) }
            return recover(after: .transport(failure), because: "\(failure)", at: now, linkIsDown: true)
        case .jumpingLegacy:
            return connect(bootloaderAfterLegacyJump, .afterJump, at: now)
        case .cancelling:
            return cancelled()
        case .namingBootloader, .enteringBootloader, .awaitingDisconnect:
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
            guard firmware.parts(for: .secure) != nil else {
                return fail(.firmwareUnsuitable(.noInitPacket(for: .secure)))
            }
            selectedProtocol = .secure
            var machine = SecureDFU(context: context, mtu: mtu)
            let first = machine.begin(at: now)
            state = .secure(machine)
            return [.enableNotifications(.secureControlPoint)] + first
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
        guard firmware.parts(for: .legacy) != nil else { return fail(.firmwareUnsuitable(.noInitPacket(for: .legacy))) }
        selectedProtocol = .legacy
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
                address: connectedAddress.incrementedLeastSignificantByte,
                advertisedName: configuration.bootloaderName.map {
                    String(decoding: Array($0.utf8.prefix(20)), as: UTF8.self)
                })
        case .withBonds:
            ConnectionRequest(address: connectedAddress)
        }
    }

    /// After the legacy jump the bootloader keeps the address when the application handed over peer data, and
    /// uses the last byte + 1 when it did not (SDK 6.1, §1.11).
    private var bootloaderAfterLegacyJump: ConnectionRequest {
        ConnectionRequest(
            address: connectedAddress, alternativeAddress: connectedAddress.incrementedLeastSignificantByte)
    }

    private mutating func apply(_ output: MachineOutput, at now: Duration) -> [DFUAction] {
        switch output {
        case .running(let actions): actions
        case .partComplete(let actions, let confirmation): actions + partComplete(confirmation, at: now)
        case .failed(let error): fail(error)
        case .restart(let actions, let reason, let error):
            recover(after: error, because: reason, at: now, first: actions)
        }
    }

    private mutating func partComplete(_ confirmation: PartConfirmation, at now: Duration) -> [DFUAction] {
        confirmations.append(confirmation)
        reconnects = 0
        executedMark = 0
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
        var next = ConnectionRequest(address: connectedAddress)
        if confirmation.dfuProtocol == .legacy, connectedAddress == target {
            next.alternativeAddress = target.incrementedLeastSignificantByte
        }
        state = .awaitingDisconnect(next, .direct)
        return [
            .cancelTimer(.response), done,
            .startTimer(.disconnection, deadline: now + configuration.disconnectionTimeout),
        ]
    }

    /// Gives the update a new connection, as Nordic's libraries reconnect and resume on link loss.
    ///
    /// Drops the link unless it is down already, then connects to where the target advertises now, and resumes
    /// (Secure) or starts the part over (legacy). After ``DFUConfiguration/maximumReconnects`` in a row without
    /// progress (a Secure connection that executed a data object past ``executedMark``, or a confirmed part), fails
    /// with `error`.
    ///
    /// - Parameters:
    ///   - error: The failure to report when no reconnect is left.
    ///   - reason: Why, for the log.
    ///   - now: The current time.
    ///   - linkIsDown: Whether the link already dropped.
    ///   - first: Actions to perform before the link is dropped (a legacy Reset).
    /// - Returns: The actions.
    private mutating func recover(
        after error: DFUError, because reason: String, at now: Duration, linkIsDown: Bool = false,
        first: [DFUAction] = []
    ) -> [DFUAction] {
        if case .secure(let machine) = state, machine.executedOffset > executedMark {
            executedMark = machine.executedOffset
            reconnects = 0
        }
        guard reconnects < configuration.maximumReconnects else {
            let reached = "the target executed data objects up to offset \(executedMark) and no further"
            let stalled: [DFUAction] = executedMark > 0 ? [.log(reached)] : []
            if case .reconnectsExhausted = error { return stalled + fail(.reconnectsExhausted(attempts: reconnects)) }
            return stalled + fail(error)
        }
        reconnects += 1
        let note = DFUAction.log(
            "\(reason); reconnecting (\(reconnects) of \(configuration.maximumReconnects))"
                + (isLegacy ? ", legacy dfu restarts the part" : ""))
        let timers: [DFUAction] = [
            .cancelTimer(.response), .cancelTimer(.objectPreparation), .cancelTimer(.connection),
        ]
        if linkIsDown { return first + timers + [note] + connect(recoveryRequest, .direct, at: now) }
        state = .awaitingDisconnect(recoveryRequest, .direct)
        return first + timers + [
            note, .disconnect, .startTimer(.disconnection, deadline: now + configuration.disconnectionTimeout),
        ]
    }

    /// Where the target may advertise after link loss or a reset: where it was, or (for a bootloader reached at
    /// another address, such as address + 1 after a buttonless jump) back at the user's address, where the
    /// application comes back when the reset found it still valid.
    private var recoveryRequest: ConnectionRequest {
        var request = lastRequest
        if request.address != target, request.alternativeAddress == nil { request.alternativeAddress = target }
        return request
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
