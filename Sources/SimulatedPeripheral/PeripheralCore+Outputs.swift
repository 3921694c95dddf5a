import BlueZ
import DBus
import DFUSimulator

/// The answer a request waits for among the device's outputs.
enum AwaitedAnswer {
    /// The ATT Write Response (or error) to a write request on the role.
    case write(CharacteristicRole)
    /// The value (or error) of a read of the role.
    case read(CharacteristicRole)
    /// The result of enabling notifications on the role, through the socket or through `PropertiesChanged`.
    case subscription(CharacteristicRole, viaSocket: Bool)
}

/// What the device answered to the awaited request.
enum DeviceAnswer {
    /// Success, with the value of a read.
    case success([UInt8])
    /// The device refused.
    case failure(GATTFailure)
}

extension PeripheralCore {
    /// Performs the device's outputs in order, under the lock.
    ///
    /// - Parameters:
    ///   - events: The outputs.
    ///   - state: The locked state.
    ///   - awaited: The answer a request waits for; the first matching output is passed to `answer` at its place
    ///     in the order.
    ///   - answer: Receives that output.
    /// - Returns: Whether the awaited answer came.
    @discardableResult
    func deliver(
        _ events: [SimulatorEvent], _ state: inout State, awaiting awaited: AwaitedAnswer? = nil,
        answer: (DeviceAnswer) -> Void = { _ in }
    ) -> Bool {
        var isAnswered = awaited == nil
        for event in events {
            onEvent(.output(event))
            if !isAnswered, let awaited, let result = Self.answer(awaited, in: event.output) {
                isAnswered = true
                if case .success = result, case .subscription(let role, let viaSocket) = awaited {
                    subscribe(role, viaSocket: viaSocket, &state)
                }
                answer(result)
                continue
            }
            switch event.output {
            case .connected(let mtu):
                if let link = state.link { onEvent(.connected(central: link.central, mtu: mtu)) }
            case .notification(let role, let bytes):
                notify(role, bytes, &state)
            case .disconnected:
                guard let link = state.link else { continue }
                endLink(&state, notifyingSignals: true)
                state.disconnecting.insert(link.central)
                actions.yield(.disconnect(central: link.central))
                if state.device.advertisement == nil { actions.yield(.withdraw) }
            case .rebooted(let advertisement):
                reboot(advertisement, &state)
            case .subscribed, .writeAcknowledged, .writeFailed, .readValue, .readFailed:
                // Answers to requests: each comes in the outputs of the request that caused it, where it is
                // awaited; one that is not awaited answers a request nobody waits for (a write command).
                continue
            }
        }
        return isAnswered
    }

    /// Reports new log lines and activations; called at the end of every locked step.
    func finish(_ state: inout State) {
        let log = state.device.log
        guard log.count > state.logCursor else { return }
        let fresh = log[state.logCursor...]
        state.logCursor = log.count
        for entry in fresh { onEvent(.log(entry)) }
        // Both bootloaders log "activated …" when they swap an image in (SecureBootloader, LegacyBootloader).
        let activations = fresh.filter { $0.kind == .device && $0.message.hasPrefix("activated ") }.count
        guard activations > 0 else { return }
        var current: [FirmwareType: [UInt8]] = [:]
        for type in FirmwareType.allCases {
            if let image = state.device.activatedImage(type) { current[type] = image }
        }
        let changed = current.filter { state.activated[$0.key] != $0.value }
        state.activated = current
        // The same bytes activated again change nothing visible: report what is there.
        onEvent(.activated(changed.isEmpty ? current : changed))
    }

    private static func answer(_ awaited: AwaitedAnswer, in output: SimulatorOutput) -> DeviceAnswer? {
        switch (awaited, output) {
        case (.write(let role), .writeAcknowledged(let answered)) where role == answered: .success([])
        case (.write(let role), .writeFailed(let answered, let failure)) where role == answered: .failure(failure)
        case (.read(let role), .readValue(let answered, let bytes)) where role == answered: .success(bytes)
        case (.read(let role), .readFailed(let answered, let failure)) where role == answered: .failure(failure)
        case (.subscription(let role, _), .subscribed(let answered)) where role == answered: .success([])
        case (.subscription(let role, _), .writeFailed(let answered, let failure)) where role == answered:
            .failure(failure)
        case (_, _): nil
        }
    }

    private func subscribe(_ role: CharacteristicRole, viaSocket: Bool, _ state: inout State) {
        if viaSocket {
            _ = openNotifySocket(role, &state)
        } else if state.notifying.insert(role).inserted, let path = state.database.characteristic(role)?.path {
            post(path, ["Notifying": .bool(true)])
        }
    }

    private func notify(_ role: CharacteristicRole, _ bytes: [UInt8], _ state: inout State) {
        guard let path = state.database.characteristic(role)?.path else {
            onEvent(.warning("notification on \(role), which the registered database lacks, dropped"))
            return
        }
        if let socket = state.notifySockets[role] {
            if !socket.send(bytes) {
                onEvent(.warning("notification on \(role) dropped: its socket is full or closed"))
            }
        } else if state.notifying.contains(role) {
            state.values[path] = bytes
            post(path, ["Value": .bytes(bytes)])
        } else {
            onEvent(.warning("notification on \(role) dropped: no StartNotify or AcquireNotify on it"))
        }
    }

    private func reboot(_ advertisement: Advertisement, _ state: inout State) {
        resetSubscriptions(&state, notifyingSignals: true)
        state.generation += 1
        let database = GATTDatabase(
            generation: state.generation, roles: state.device.availableRoles, advertisement: advertisement)
        state.database = database
        for (path, object) in database.objects { state.objects[path] = object }
        actions.yield(.register(database))
    }

    /// The D-Bus error for a failure the device answered with.
    ///
    /// Names are the ones bluetoothd maps to the same ATT code when a GATT server application returns them
    /// (`dbus_error_to_att_ecode` in `src/gatt-database.c`), and every message carries the ATT code in the text
    /// BlueZ gives a central (`create_gatt_dbus_error` in `src/gatt-client.c`): a client reading either sees the
    /// code. 0xFD has no name before BlueZ 5.75 (`ImproperlyConfigured`), so it travels as `Failed`.
    static func error(for failure: GATTFailure) -> DBusMethodReply {
        switch failure {
        case .att(let error):
            let message = "Operation failed with ATT error: 0x\(hex(error.rawValue))"
            let name =
                switch error {
                case .invalidAttributeValueLength: "org.bluez.Error.InvalidValueLength"
                case .readNotPermitted, .writeNotPermitted: "org.bluez.Error.NotPermitted"
                case .cccdImproperlyConfigured: "org.bluez.Error.Failed"
                }
            return .error(name: name, message: message)
        case .notConnected:
            return .error(name: "org.bluez.Error.NotConnected", message: "Not connected")
        case .characteristicNotFound:
            // ATT 0x0A, Attribute Not Found: the device's database in this mode has no such characteristic.
            return .error(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0x0a")
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
