import CDBus

extension ConnectionLoop {
    /// Connects (on the loop thread) and installs the loop's hooks.
    ///
    /// - Returns: `nil`, or why the bus could not be reached.
    func open(_ address: BusAddress) -> DBusError? {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let opened: OpaquePointer?
        switch address {
        case .system:
            // Honours DBUS_SYSTEM_BUS_ADDRESS, which the test rig sets for child processes.
            opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let text):
            if let connection = dbus_connection_open_private(text, &error) {
                if dbus_bus_register(connection, &error) == 0 {
                    dbus_connection_close(connection)
                    dbus_connection_unref(connection)
                    opened = nil
                } else {
                    opened = connection
                }
            } else {
                opened = nil
            }
        }
        guard let connection = opened else {
            return .connectionFailed(
                name: error.name.map { String(cString: $0) } ?? DBusError.Names.failed,
                message: error.message.map { String(cString: $0) } ?? "no reason given")
        }
        // Bus connections default to _exit() on disconnect.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        isConnected = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        let installed = dbus_connection_set_timeout_functions(
            connection, addTimeoutCallback, removeTimeoutCallback, toggleTimeoutCallback, context, nil)
        precondition(installed != 0, "libdbus is out of memory installing timeout functions")
        precondition(
            dbus_connection_add_filter(connection, filterCallback, context, nil) != 0,
            "libdbus is out of memory installing the signal filter")
        return nil
    }

    /// The connection's unique name (`:1.42`).
    var uniqueName: String? {
        guard let connection, let name = dbus_bus_get_unique_name(connection) else { return nil }
        return String(cString: name)
    }

    fileprivate func addTimeout(_ raw: OpaquePointer) {
        let interval = Duration.milliseconds(Int64(dbus_timeout_get_interval(raw)))
        let isEnabled = dbus_timeout_get_enabled(raw) != 0
        timeouts[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(raw)))] = LibDBusTimeout(
            raw: raw, interval: interval, deadline: isEnabled ? deadline(after: interval) : nil)
    }

    fileprivate func removeTimeout(_ raw: OpaquePointer) {
        timeouts[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(raw)))] = nil
    }
}

private func loop(_ context: UnsafeMutableRawPointer?) -> ConnectionLoop? {
    context.map { Unmanaged<ConnectionLoop>.fromOpaque($0).takeUnretainedValue() }
}

private let addTimeoutCallback: DBusAddTimeoutFunction = { timeout, context in
    guard let timeout, let loop = loop(context) else { return 0 }
    loop.addTimeout(timeout)
    return 1
}

private let removeTimeoutCallback: DBusRemoveTimeoutFunction = { timeout, context in
    guard let timeout, let loop = loop(context) else { return }
    loop.removeTimeout(timeout)
}

private let toggleTimeoutCallback: DBusTimeoutToggledFunction = { timeout, context in
    guard let timeout, let loop = loop(context) else { return }
    loop.removeTimeout(timeout)
    loop.addTimeout(timeout)
}

private let filterCallback: DBusHandleMessageFunction = { _, message, context in
    guard let message, let loop = loop(context) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    loop.filter(message)
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
