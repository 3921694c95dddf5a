/// A simulated nRF5 device: application with buttonless DFU, Secure DFU bootloader or legacy DFU bootloader,
/// as a sans-IO state machine in virtual time.
///
/// Inputs are GATT-level events by ``CharacteristicRole``, each with the virtual time it happens; outputs are
/// ``SimulatorEvent`` values. Responses that the real bootloader delays (flash erase before the legacy Start
/// response, queued flash writes before a Secure Execute response, the reset after activation) are held back
/// until the caller advances time past them with ``advance(to:)`` or with the next input. Time never goes
/// backwards; a caller that moves it back traps.
///
/// The device is written from the Nordic sources, independently of the DFU client, so that it can be the
/// client's oracle: protocol mistakes are answered with the codes the real bootloader sends and are recorded in
/// ``log`` as client violations.
package struct SimulatedDevice: Sendable {
    private enum Mode {
        case application(ButtonlessApplication)
        case secureBootloader(SecureBootloader)
        case legacyBootloader(LegacyBootloader)
        /// Off the air between a reset and the next advertisement.
        case resetting
    }

    private struct Connection {
        let id: Int
        let mtu: Int
        var subscribed: Set<CharacteristicRole> = []
        var controlPointWrites = 0
        /// The device stopped answering on this link (stall fault, or it reset without closing the link).
        var isUnresponsive = false
    }

    private enum Action {
        case device(DeviceAction, connectionID: Int?)
        /// The central notices that the link is gone.
        case dropLink(DisconnectReason, connectionID: Int)
        case boot(BootRequest)
    }

    private struct Scheduled {
        let time: Duration
        let sequence: Int
        let action: Action
    }

    /// The configuration the device was built from.
    package let configuration: SimulatorConfiguration
    private var mode: Mode
    private var connection: Connection?
    private var nextConnectionID = 1
    private var now: Duration = .zero
    private var flash: FlashTimeline
    private var storage: DeviceStorage
    private var injector: FaultInjector
    private var scheduled: [Scheduled] = []
    private var sequence = 0
    private var lastActivity: Duration = .zero
    /// How the device advertises now; `nil` while it is connected or resetting.
    package private(set) var advertisement: Advertisement?
    /// How the device advertises whenever it is not connected, until the next reset.
    private var bootAdvertisement: Advertisement?
    /// Everything noteworthy so far: client violations, injected faults, device actions.
    package private(set) var log: [SimulatorLogEntry] = []

    /// Creates a device that starts advertising at time zero.
    ///
    /// - Parameter configuration: The device's build and state.
    package init(configuration: SimulatorConfiguration) {
        self.configuration = configuration
        flash = FlashTimeline(timing: configuration.flash)
        injector = FaultInjector(plan: configuration.faults)
        let secureOptions: SecureBootloaderOptions
        if case .secure(let options) = configuration.bootloader {
            secureOptions = options
        } else {
            secureOptions = SecureBootloaderOptions()
        }
        storage = DeviceStorage(secureSettings: SecureSettings(options: secureOptions))
        if let application = configuration.installedApplication {
            storage.images[.application] = application
        }
        mode = .resetting
        let boot: BootRequest =
            configuration.installedApplication == nil ? .bootloader(viaButtonless: false) : .applicationIfValid
        _ = start(boot)
    }

    // MARK: Observation

    /// The firmware running, or `nil` while the device resets.
    package var deviceMode: DeviceMode? {
        switch mode {
        case .application: .application
        case .secureBootloader: .secureBootloader
        case .legacyBootloader: .legacyBootloader
        case .resetting: nil
        }
    }

    /// Whether a central is connected.
    package var isConnected: Bool { connection != nil }

    /// The image of `type` activated during this session (the latest one), or `nil` if none was.
    ///
    /// - Parameter type: The firmware component.
    /// - Returns: The activated bytes.
    package func activatedImage(_ type: FirmwareType) -> [UInt8]? { storage.activated[type] }

    /// The image of `type` installed now (configured at start or activated since).
    ///
    /// - Parameter type: The firmware component.
    /// - Returns: The installed bytes.
    package func installedImage(_ type: FirmwareType) -> [UInt8]? { storage.images[type] }

    /// The messages of the client violations logged so far.
    package var violations: [String] { log.filter { $0.kind == .clientViolation }.map(\.message) }

    /// When the next held-back output or device action is due, if any; a driver advances to it.
    package var nextEventTime: Duration? {
        [scheduled.map(\.time).min(), inactivityDeadline].compactMap { $0 }.min()
    }

    // MARK: Inputs

    /// The central connects and exchanges MTUs.
    ///
    /// - Parameters:
    ///   - mtu: The ATT MTU the central requests (23 if it does no exchange).
    ///   - time: When.
    /// - Returns: Due events, then `connected` with the negotiated MTU.
    package mutating func connect(mtu: Int, at time: Duration) -> [SimulatorEvent] {
        var events = advance(to: time)
        lastActivity = time
        guard connection == nil else {
            record(.clientViolation, "connect while already connected")
            return events
        }
        guard advertisement != nil else {
            record(.clientViolation, "connect while the device is not advertising")
            return events
        }
        var negotiated = negotiatedMTU(requested: max(23, mtu))
        if let cap = injector.mtuCap, cap < negotiated {
            record(.fault, "MTU capped at \(cap)")
            negotiated = max(23, cap)
        }
        connection = Connection(id: nextConnectionID, mtu: negotiated)
        nextConnectionID += 1
        advertisement = nil
        events.append(SimulatorEvent(time: time, output: .connected(mtu: negotiated)))
        return events
    }

    /// The central writes the CCCD of `role` to enable notifications (or indications, for buttonless).
    ///
    /// - Parameters:
    ///   - role: The characteristic.
    ///   - time: When.
    /// - Returns: Due events, then `subscribed` or a failure.
    package mutating func enableNotifications(role: CharacteristicRole, at time: Duration) -> [SimulatorEvent] {
        var events = advance(to: time)
        lastActivity = time
        guard var link = connection else {
            record(.clientViolation, "CCCD write on \(role) while not connected")
            events.append(SimulatorEvent(time: time, output: .writeFailed(role, .notConnected)))
            return events
        }
        guard !link.isUnresponsive else { return events }
        guard availableRoles.contains(role), role.requiresSubscription else {
            record(.clientViolation, "CCCD write on \(role), which has no CCCD in this mode")
            events.append(SimulatorEvent(time: time, output: .writeFailed(role, .characteristicNotFound)))
            return events
        }
        link.subscribed.insert(role)
        connection = link
        events.append(SimulatorEvent(time: time, output: .subscribed(role)))
        return events
    }

    /// The central writes `bytes` to `role`.
    ///
    /// - Parameters:
    ///   - role: The characteristic.
    ///   - bytes: The value.
    ///   - withResponse: `true` for an ATT Write Request, `false` for a Write Command.
    ///   - time: When.
    /// - Returns: Due events, then the write response (for requests) and whatever the device answers now.
    package mutating func write(
        role: CharacteristicRole,
        bytes: [UInt8],
        withResponse: Bool,
        at time: Duration
    ) -> [SimulatorEvent] {
        var events = advance(to: time)
        lastActivity = time
        guard var link = connection else {
            record(.clientViolation, "write to \(role) while not connected")
            if withResponse { events.append(SimulatorEvent(time: time, output: .writeFailed(role, .notConnected))) }
            return events
        }
        if link.isUnresponsive {
            record(.device, "unresponsive: write to \(role) ignored")
            return events
        }
        func fail(_ failure: GATTFailure, _ message: String) {
            record(.clientViolation, message)
            if withResponse { events.append(SimulatorEvent(time: time, output: .writeFailed(role, failure))) }
        }
        guard availableRoles.contains(role), role != .legacyVersion else {
            fail(.characteristicNotFound, "write to \(role), absent in \(deviceMode.map { "\($0)" } ?? "reset")")
            return events
        }
        guard bytes.count <= link.mtu - 3 else {
            let limit = link.mtu - 3
            fail(.att(.invalidAttributeValueLength), "write of \(bytes.count) bytes to \(role); limit \(limit)")
            return events
        }
        if role.requiresSubscription {
            guard withResponse else {
                record(.clientViolation, "write command to \(role), which only accepts write requests; ignored")
                return events
            }
            guard link.subscribed.contains(role) else {
                fail(.att(.cccdImproperlyConfigured), "write to \(role) before enabling notifications/indications")
                return events
            }
            link.controlPointWrites += 1
            if let threshold = injector.stallThreshold, link.controlPointWrites >= threshold {
                link.isUnresponsive = true
                connection = link
                record(.fault, "device stalls from control point write \(link.controlPointWrites)")
                return events
            }
            connection = link
        }
        if withResponse { events.append(SimulatorEvent(time: time, output: .writeAcknowledged(role))) }
        if role.isPacket {
            deliverPacket(role, bytes, at: time)
        } else if let forced = forcedResponse(role, bytes) {
            record(.fault, "forced response \(hexDump(forced)) to \(hexDump(bytes))")
            schedule(.device(.notify(role, forced), connectionID: link.id), at: time)
        } else {
            dispatch(role, bytes, at: time)
        }
        events += advance(to: time)
        return events
    }

    /// The central reads `role`.
    ///
    /// - Parameters:
    ///   - role: The characteristic.
    ///   - time: When.
    /// - Returns: Due events, then the value or a failure.
    package mutating func read(role: CharacteristicRole, at time: Duration) -> [SimulatorEvent] {
        var events = advance(to: time)
        lastActivity = time
        guard connection != nil else {
            events.append(SimulatorEvent(time: time, output: .readFailed(role, .notConnected)))
            return events
        }
        let output: SimulatorOutput
        switch (mode, role) {
        case (.legacyBootloader(let bootloader), .legacyVersion):
            output = bootloader.version.map { .readValue(role, $0) } ?? .readFailed(role, .characteristicNotFound)
        case (.application, .legacyVersion) where availableRoles.contains(.legacyVersion):
            output = .readValue(role, ButtonlessApplication.legacyVersion)
        case (_, _) where availableRoles.contains(role):
            output = .readFailed(role, .att(.readNotPermitted))
        case (_, _):
            output = .readFailed(role, .characteristicNotFound)
        }
        if case .readFailed = output { record(.clientViolation, "read of \(role) failed: \(output)") }
        events.append(SimulatorEvent(time: time, output: output))
        return events
    }

    /// The central disconnects.
    ///
    /// The device keeps its state (the SDK bootloaders just advertise again).
    ///
    /// - Parameter time: When.
    /// - Returns: Due events.
    package mutating func disconnect(at time: Duration) -> [SimulatorEvent] {
        let events = advance(to: time)
        lastActivity = time
        guard connection != nil else {
            record(.clientViolation, "disconnect while not connected")
            return events
        }
        connection = nil
        advertisement = bootAdvertisement
        return events
    }

    /// Lets virtual time pass.
    ///
    /// - Parameter time: The new current time; earlier than the current time is a programmer error.
    /// - Returns: The events that became due, in order.
    package mutating func advance(to time: Duration) -> [SimulatorEvent] {
        precondition(time >= now, "time went backwards from \(now) to \(time)")
        var events: [SimulatorEvent] = []
        while true {
            let nextScheduled = scheduled.indices.min {
                (scheduled[$0].time, scheduled[$0].sequence) < (scheduled[$1].time, scheduled[$1].sequence)
            }
            let scheduledTime = nextScheduled.map { scheduled[$0].time }
            if let deadline = inactivityDeadline, deadline <= time, scheduledTime.map({ deadline < $0 }) ?? true {
                now = deadline
                record(.device, "inactivity timeout: resetting")
                lastActivity = deadline
                events += perform(.device(.reset(.terminatedByDevice, .applicationIfValid), connectionID: nil))
                continue
            }
            guard let index = nextScheduled, scheduled[index].time <= time else { break }
            // The first item due among equal times runs first; `sequence` keeps insertion order.
            let item = scheduled.remove(at: index)
            now = item.time
            events += perform(item.action)
        }
        now = time
        return events
    }
}

// MARK: - Internals

extension SimulatedDevice {
    /// The characteristics the device exposes in its current mode (its GATT database, as a central discovers it).
    package var availableRoles: Set<CharacteristicRole> {
        switch mode {
        case .application(let application): application.roles
        case .secureBootloader: [.secureControlPoint, .securePacket]
        case .legacyBootloader(let bootloader):
            bootloader.version == nil
                ? [.legacyControlPoint, .legacyPacket] : [.legacyControlPoint, .legacyPacket, .legacyVersion]
        case .resetting: []
        }
    }

    private var inactivityDeadline: Duration? {
        switch (mode, configuration.bootloader) {
        case (.secureBootloader, .secure(let options)): lastActivity + options.inactivityTimeout
        case (.legacyBootloader, .legacy(let options)): lastActivity + options.inactivityTimeout
        case (_, _): nil
        }
    }

    private func negotiatedMTU(requested: Int) -> Int {
        switch mode {
        case .secureBootloader(let bootloader):
            // nrf_dfu_ble.c: below the maximum, reply with an MTU whose payload is a multiple of 4.
            let maximum = bootloader.options.maximumMTU
            guard requested < maximum else { return maximum }
            let payload = requested - 3
            guard payload % 4 != 0 else { return requested }
            return (payload - 4 + 3) / 4 * 4 + 3
        case .legacyBootloader: return 23
        case .application: return min(requested, configuration.applicationMaximumMTU)
        case .resetting: return 23
        }
    }

    private mutating func record(_ kind: SimulatorLogEntry.Kind, _ message: String) {
        log.append(SimulatorLogEntry(time: now, kind: kind, message: message))
    }

    private mutating func schedule(_ action: Action, at time: Duration) {
        sequence += 1
        scheduled.append(Scheduled(time: time, sequence: sequence, action: action))
    }

    private mutating func forcedResponse(_ role: CharacteristicRole, _ bytes: [UInt8]) -> [UInt8]? {
        guard let opcode = bytes.first else { return nil }
        switch (mode, role) {
        case (.secureBootloader, .secureControlPoint):
            guard let (result, extended) = injector.forcedResponse(opcode: opcode) else { return nil }
            return [SecureDFUOpcode.response.rawValue, opcode, result] + (extended.map { [$0] } ?? [])
        case (.legacyBootloader, .legacyControlPoint):
            guard let (result, _) = injector.forcedResponse(opcode: opcode) else { return nil }
            return [LegacyDFUOpcode.response.rawValue, opcode, result]
        case (_, _):
            return nil
        }
    }

    private mutating func deliverPacket(_ role: CharacteristicRole, _ bytes: [UInt8], at time: Duration) {
        let (fate, notes) = injector.packetFate(bytes)
        for note in notes { record(.fault, note) }
        let copies: [[UInt8]]
        switch fate {
        case .drop: copies = []
        case .deliver(let payload): copies = [payload]
        case .deliverTwice(let payload): copies = [payload, payload]
        }
        for payload in copies {
            guard let link = connection, !link.isUnresponsive else { return }
            dispatch(role, payload, at: time)
            switch injector.recordPacketBytes(payload.count) {
            case .disconnect:
                record(.fault, "link lost after \(injector.packetBytesReceived) packet bytes")
                schedule(.dropLink(.linkLost, connectionID: link.id), at: time)
                var lost = link
                lost.isUnresponsive = true
                connection = lost
            case .reboot:
                record(.fault, "device resets after \(injector.packetBytesReceived) packet bytes")
                schedule(.device(.reset(.supervisionTimeout, .applicationIfValid), connectionID: link.id), at: time)
            case nil:
                continue
            }
        }
    }

    private mutating func dispatch(_ role: CharacteristicRole, _ bytes: [UInt8], at time: Duration) {
        var context = DeviceContext(now: time, flash: flash, storage: storage)
        switch mode {
        case .application(var application):
            application.write(role, bytes, &context)
            mode = .application(application)
        case .secureBootloader(var bootloader):
            if role == .securePacket {
                bootloader.packet(bytes, &context)
            } else {
                bootloader.controlPoint(bytes, &context)
            }
            mode = .secureBootloader(bootloader)
        case .legacyBootloader(var bootloader):
            if role == .legacyPacket {
                bootloader.packet(bytes, &context)
            } else {
                bootloader.controlPoint(bytes, &context)
            }
            mode = .legacyBootloader(bootloader)
        case .resetting:
            preconditionFailure("write to \(role) dispatched while the device resets")
        }
        flash = context.flash
        storage = context.storage
        for (kind, message) in context.entries { record(kind, message) }
        for (time, action) in context.actions { schedule(.device(action, connectionID: connection?.id), at: time) }
    }

    private mutating func perform(_ action: Action) -> [SimulatorEvent] {
        switch action {
        case .device(.notify(let role, let bytes), let connectionID):
            guard let link = connection, link.id == connectionID, !link.isUnresponsive else {
                record(.device, "notification \(hexDump(bytes)) not sent: the link is gone")
                return []
            }
            guard link.subscribed.contains(role) else {
                record(.device, "notification \(hexDump(bytes)) not sent: \(role) not subscribed")
                return []
            }
            let (copies, notes) = injector.notificationFate(bytes)
            for note in notes { record(.fault, note) }
            return copies.map { SimulatorEvent(time: now, output: .notification(role, $0)) }
        case .device(.reset(let reason, let boot), _):
            return reset(reason, boot: boot)
        case .dropLink(let reason, let connectionID):
            guard connection?.id == connectionID else { return [] }
            connection = nil
            advertisement = bootAdvertisement
            return [SimulatorEvent(time: now, output: .disconnected(reason))]
        case .boot(let request):
            return start(request)
        }
    }

    private mutating func reset(_ reason: DisconnectReason, boot: BootRequest) -> [SimulatorEvent] {
        if case .secureBootloader(let bootloader) = mode { storage.secureSettings = bootloader.settings }
        var events: [SimulatorEvent] = []
        if var link = connection, !link.isUnresponsive {
            switch reason {
            case .supervisionTimeout:
                link.isUnresponsive = true
                connection = link
                schedule(
                    .dropLink(.supervisionTimeout, connectionID: link.id), at: now + configuration.supervisionTimeout)
            case .terminatedByDevice, .linkLost:
                connection = nil
                events.append(SimulatorEvent(time: now, output: .disconnected(reason)))
            }
        }
        record(.device, "reset; next boot: \(boot)")
        mode = .resetting
        advertisement = nil
        bootAdvertisement = nil
        schedule(.boot(boot), at: now + configuration.resetDuration)
        return events
    }

    private mutating func start(_ request: BootRequest) -> [SimulatorEvent] {
        let viaButtonless: Bool
        switch request {
        case .bootloader(let value): viaButtonless = value
        case .applicationIfValid where storage.images[.application] != nil:
            mode = .application(ButtonlessApplication(service: configuration.buttonless))
            return announce(
                Advertisement(mode: .application, address: configuration.address, name: configuration.applicationName))
        case .applicationIfValid: viaButtonless = false
        }
        let address: DeviceAddress
        var name = configuration.bootloaderName
        switch configuration.bootloader {
        case .secure(let options):
            let settings = storage.secureSettings.afterReset(savesProgress: options.savesProgressInFlash)
            mode = .secureBootloader(
                SecureBootloader(
                    options: options,
                    settings: settings,
                    dropsMisalignedWrites: options.dropsMisalignedWrites || injector.rejectsMisalignedWrites
                ))
            if case .secureWithBonds = configuration.buttonless {
                address = configuration.address
            } else {
                address = configuration.address.bootloaderAddress
                if viaButtonless, let chosen = storage.bootloaderName { name = chosen }
            }
        case .legacy(let options):
            mode = .legacyBootloader(LegacyBootloader(options: options))
            // SDK 11 keeps the address when the application handed over peer data, else LSB + 1; the v1
            // bootloaders (SDK ≤ 5) keep it.
            address =
                options.generation == .v1 || viaButtonless
                ? configuration.address : configuration.address.bootloaderAddress
        }
        storage.bootloaderName = nil
        return announce(Advertisement(mode: deviceMode ?? .secureBootloader, address: address, name: name))
    }

    private mutating func announce(_ advertisement: Advertisement) -> [SimulatorEvent] {
        lastActivity = now
        bootAdvertisement = advertisement
        if connection == nil { self.advertisement = advertisement }
        record(.device, "advertising as \(advertisement)")
        return [SimulatorEvent(time: now, output: .rebooted(advertisement))]
    }
}
