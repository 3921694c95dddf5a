import CDBus

/// One `signals(matching:)` stream.
struct Subscription {
    let rule: DBusMatchRule
    let continuation: AsyncStream<DBusSignal>.Continuation
}

extension ConnectionLoop {
    /// Registers a subscription and asks the bus to route its signals; `completion` runs once the bus has
    /// the rule, so that no signal sent after that moment can be missed.
    func subscribe(
        id: UInt64,
        _ rule: DBusMatchRule,
        continuation: AsyncStream<DBusSignal>.Continuation,
        completion: @escaping (Result<Void, DBusError>) -> Void
    ) {
        guard isConnected else {
            continuation.finish()
            return completion(.failure(.disconnected))
        }
        subscriptions[id] = Subscription(rule: rule, continuation: continuation)
        if rule.hasWellKnownSender, let sender = rule.sender { trackOwner(of: sender) }
        startCall(id: nextID(), busCall("AddMatch", rule.description), timeout: .seconds(25)) { [weak self] result in
            switch result {
            case .success: completion(.success(()))
            case .failure(let error):
                self?.subscriptions[id]?.continuation.finish()
                self?.subscriptions[id] = nil
                completion(.failure(error))
            }
        }
    }

    /// Drops a subscription and its rule at the bus.
    func unsubscribe(id: UInt64) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        let message = LibDBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RemoveMatch")
        message.setNoReply()
        if (try? message.append([.string(subscription.rule.description)])) != nil {
            _ = sendWithoutReply(message)
        }
    }

    /// Follows a well-known name's owner: a match on its NameOwnerChanged, then GetNameOwner.
    ///
    /// The bus answers
    /// both before any later signal of the name, so the owner is known when those signals are filtered.
    private func trackOwner(of name: String) {
        guard trackedOwners[name] == nil else { return }
        trackedOwners[name] = .some(nil)
        let rule = DBusMatchRule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", arg0: name)
        startCall(id: nextID(), busCall("AddMatch", rule.description), timeout: .seconds(25)) { _ in }
        startCall(id: nextID(), busCall("GetNameOwner", name), timeout: .seconds(25)) { [weak self] result in
            if case .success(let values) = result, let owner = values.first?.stringValue {
                self?.trackedOwners[name] = .some(owner)
            }
        }
    }

    private func busCall(_ member: String, _ argument: String) -> CallRequest {
        CallRequest(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: [.string(argument)])
    }

    /// Sees every received message first (libdbus filter): keeps owners current, hands signals to subscribers.
    func filter(_ raw: OpaquePointer) {
        guard dbus_message_get_type(raw) == DBUS_MESSAGE_TYPE_SIGNAL else { return }
        let message = LibDBusMessage(adopting: dbus_message_ref(raw))
        let header = message.header
        if header.interface == "org.freedesktop.DBus.Local" && header.member == "Disconnected" {
            connectionLost()
            return
        }
        var arguments: [DBusValue]?
        func readArguments() -> [DBusValue] {
            if let arguments { return arguments }
            let read = message.arguments()
            arguments = read
            return read
        }
        if header.sender == "org.freedesktop.DBus" && header.member == "NameOwnerChanged" {
            let values = readArguments()
            if values.count == 3, let name = values[0].stringValue, trackedOwners[name] != nil {
                let newOwner = values[2].stringValue ?? ""
                trackedOwners[name] = .some(newOwner.isEmpty ? nil : newOwner)
            }
        }
        guard !subscriptions.isEmpty else { return }
        for subscription in subscriptions.values {
            let isMatch = subscription.rule.matches(
                sender: header.sender, path: header.path, interface: header.interface, member: header.member,
                firstArgument: {
                    readArguments().first.flatMap { if case .string(let text) = $0 { text } else { nil } }
                },
                owner: { name in self.trackedOwners[name] ?? nil })
            guard isMatch else { continue }
            subscription.continuation.yield(
                DBusSignal(
                    sender: header.sender ?? "", path: header.path ?? "/", interface: header.interface ?? "",
                    member: header.member ?? "", arguments: readArguments()))
        }
    }
}
