import BlueZ
import DBus
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two connections to a private bus: `server` exports objects, `client` calls them.
private func withPeers<T>(_ body: (BusConnection, BusConnection, PrivateBus) async throws -> T) async throws -> T {
    let bus = try PrivateBus.start()
    defer { bus.stop() }
    let server = try await BusConnection.open(.address(bus.address))
    defer { server.close() }
    let client = try await BusConnection.open(.address(bus.address))
    defer { client.close() }
    try await server.export(path: "/test/echo") { call in
        call.member == "Fail"
            ? .error(name: "org.bluez.Error.NotPermitted", message: "Not Permitted")
            : .returning(call.arguments)
    }
    return try await body(server, client, bus)
}

private func echo(_ client: BusConnection, _ server: BusConnection, _ values: [DBusValue]) async throws(DBusError)
    -> [DBusValue]
{
    try await client.call(
        destination: server.uniqueName, path: "/test/echo", interface: "org.nrfloader.Test", member: "Echo",
        arguments: values, timeout: .seconds(5))
}

@Suite("BusConnection over a private dbus-daemon", .tags(.integration), .enabled(if: PrivateBus.daemonPath != nil))
struct BusConnectionTests {
    static let everyKind: [DBusValue] = [
        .byte(0xA5), .bool(true), .bool(false), .int16(-12345), .uint16(54321), .int32(-7), .uint32(0xDEAD_BEEF),
        .int64(-1 << 40), .uint64(1 << 63), .double(-2.5), .string("héllo"), .string(""),
        .objectPath("/org/bluez/hci0"), .signature("a{sv}"), .bytes([0x01, 0x00, 0xFF]), .bytes([]),
        .array(.string, [.string("a"), .string("b")]), .array(.string, []),
        .array(.array(.byte), [.bytes([1]), .bytes([])]),
        .dictionary(key: .string, value: .variant, []),
        .propertyDictionary([
            "s": .string("text"), "ay": .bytes([0x60]), "q": .uint16(517), "n": .int16(-60), "b": .bool(true),
            "as": .stringArray(["0000fe59-0000-1000-8000-00805f9b34fb"]), "o": .objectPath("/"),
        ]),
        .dictionary(key: .uint16, value: .variant, [DBusDictionaryEntry(.uint16(0x0059), .variant(.bytes([1, 2])))]),
        .structure([.string("x"), .uint32(1), .structure([.bool(false)])]),
        .variant(.variant(.int32(3))),
        .array(.structure([.objectPath, .array(.byte)]), [.structure([.objectPath("/a"), .bytes([9])])]),
    ]

    @Test("round-trips every kind of value through an exported echo object", arguments: everyKind)
    func roundTrip(value: DBusValue) async throws {
        try await withPeers { server, client, _ in
            let reply = try await echo(client, server, [value])
            #expect(reply == [value])
        }
    }

    @Test("round-trips all kinds in one message, in order")
    func roundTripAll() async throws {
        try await withPeers { server, client, _ in
            let reply = try await echo(client, server, Self.everyKind)
            #expect(reply == Self.everyKind)
        }
    }

    @Test("passes a unix fd that still reaches the same pipe")
    func unixFD() async throws {
        try await withPeers { server, client, _ in
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            defer { close(ends[0]) }
            let reply = try await echo(client, server, [.unixFD(ends[1])])
            close(ends[1])
            guard case .unixFD(let received) = try #require(reply.first) else {
                Issue.record("reply is \(reply)")
                return
            }
            #expect(received != ends[1])
            var byte: UInt8 = 0x42
            #expect(write(received, &byte, 1) == 1)
            close(received)
            var back: UInt8 = 0
            #expect(read(ends[0], &back, 1) == 1)
            #expect(back == 0x42)
        }
    }

    @Test("an error reply keeps its name and message, and BlueZError sorts it")
    func errorReply() async throws {
        try await withPeers { server, client, _ in
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: server.uniqueName, path: "/test/echo", interface: nil, member: "Fail",
                    timeout: .seconds(5))
            }
            let expected = DBusError.errorReply(name: "org.bluez.Error.NotPermitted", message: "Not Permitted")
            #expect(error == expected)
            #expect(BlueZError(expected) == .notPermitted(expected))
        }
    }

    @Test("a call to an object the peer does not export gets libdbus's UnknownMethod reply")
    func unknownObject() async throws {
        try await withPeers { server, client, _ in
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: server.uniqueName, path: "/nothing/here", interface: nil, member: "Echo",
                    timeout: .seconds(5))
            }
            // libdbus 1.14 answers an unregistered path with UnknownMethod, not UnknownObject.
            #expect(error?.name == DBusError.Names.unknownMethod)
        }
    }

    @Test("a call that gets no reply times out after its own timeout")
    func timeout() async throws {
        try await withPeers { server, client, _ in
            var gate: [Int32] = [-1, -1]
            #expect(pipe(&gate) == 0)
            defer {
                close(gate[0])
                close(gate[1])
            }
            let gateReader = gate[0]
            // The handler holds the server's loop thread until the test opens the gate.
            try await server.export(path: "/test/stall") { _ in
                var byte: UInt8 = 0
                _ = read(gateReader, &byte, 1)
                return .returning([])
            }
            let started = ContinuousClock.now
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: server.uniqueName, path: "/test/stall", interface: nil, member: "Stall",
                    timeout: .milliseconds(200))
            }
            let elapsed = started.duration(to: .now)
            var byte: UInt8 = 1
            _ = write(gate[1], &byte, 1)
            #expect(error == .timedOut(member: "Stall", timeout: .milliseconds(200)))
            #expect(elapsed >= .milliseconds(200))
            // The client is still usable afterwards.
            let after = try await echo(client, server, [.byte(1)])
            #expect(after == [.byte(1)])
        }
    }

    @Test("cancelling the waiting task cancels the call")
    func cancellation() async throws {
        try await withPeers { server, client, _ in
            var gate: [Int32] = [-1, -1]
            #expect(pipe(&gate) == 0)
            defer {
                close(gate[0])
                close(gate[1])
            }
            let gateReader = gate[0]
            try await server.export(path: "/test/stall") { _ in
                var byte: UInt8 = 0
                _ = read(gateReader, &byte, 1)
                return .returning([])
            }
            let destination = server.uniqueName
            let task = Task { () async throws(DBusError) -> [DBusValue] in
                try await client.call(
                    destination: destination, path: "/test/stall", interface: nil, member: "Stall",
                    timeout: .seconds(30))
            }
            task.cancel()
            let result = await task.result
            var byte: UInt8 = 1
            _ = write(gate[1], &byte, 1)
            #expect(throws: DBusError.cancelled) { try result.get() }
        }
    }

    @Test("signals arrive in the order they were sent, also by well-known sender name")
    func signalOrder() async throws {
        try await withPeers { server, client, _ in
            try await server.requestName("org.nrfloader.TestPeer")
            let byUniqueName = try await client.signals(
                matching: DBusMatchRule(sender: server.uniqueName, interface: "org.nrfloader.Test", member: "Tick"))
            let byWellKnownName = try await client.signals(
                matching: DBusMatchRule(sender: "org.nrfloader.TestPeer", path: "/test/echo", member: "Tick"))
            let other = try await client.signals(matching: DBusMatchRule(sender: ":1.9999", member: "Tick"))
            for index in 0..<200 {
                try await server.emitSignal(
                    path: "/test/echo", interface: "org.nrfloader.Test", member: "Tick",
                    arguments: [.uint32(UInt32(index)), .bytes([UInt8(index & 0xFF)])])
            }
            for stream in [byUniqueName, byWellKnownName] {
                var received: [UInt32] = []
                for await signal in stream {
                    guard case .uint32(let index) = signal.arguments.first else { continue }
                    #expect(signal.sender == server.uniqueName)
                    received.append(index)
                    if received.count == 200 { break }
                }
                #expect(received == (0..<200).map { UInt32($0) })
            }
            client.close()
            var strays = 0
            for await _ in other { strays += 1 }
            #expect(strays == 0)
        }
    }

    @Test("closing fails later calls and ends signal streams")
    func closing() async throws {
        try await withPeers { server, client, _ in
            let stream = try await client.signals(matching: DBusMatchRule(member: "Nothing"))
            client.close()
            for await _ in stream { Issue.record("a signal after close") }
            await #expect(throws: DBusError.disconnected) { try await echo(client, server, []) }
        }
    }

    @Test("an argument that cannot go on the wire is refused before sending")
    func invalidArgument() async throws {
        try await withPeers { server, client, _ in
            await #expect(throws: DBusError.invalidArgument("string 'a\u{0}b' contains a NUL character")) {
                try await echo(client, server, [.string("a\u{0}b")])
            }
            await #expect(throws: DBusError.invalidArgument("array of 's' holds a 'u'")) {
                try await echo(client, server, [.array(.string, [.uint32(1)])])
            }
        }
    }

    @Test("a bus that does not exist is a connectionFailed error")
    func noBus() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = await #expect(throws: DBusError.self) {
            try await BusConnection.open(.address("unix:path=\(directory.file("absent"))"))
        }
        guard case .connectionFailed(let name, _) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(name.hasPrefix("org.freedesktop.DBus.Error."))
    }
}
