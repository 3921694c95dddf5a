import DeviceLink
import Testing

@Suite struct BluetoothAddressTests {
    @Test("an address round-trips through its AA:BB:… form, and the compact form parses to the same value")
    func roundTrip() throws {
        let address = try BluetoothAddress(parsing: "c0:de:00:12:ab:0f")
        #expect(address.description == "C0:DE:00:12:AB:0F")
        #expect(try BluetoothAddress(parsing: address.description) == address)
        #expect(try BluetoothAddress(parsing: "C0DE0012AB0F") == address)
        #expect(address == BluetoothAddress((0xC0, 0xDE, 0x00, 0x12, 0xAB, 0x0F)))
        #expect(Set([address, try BluetoothAddress(parsing: "C0DE0012AB0F")]).count == 1)
    }

    @Test(
        "anything but six hex pairs is refused, with the text in the message",
        arguments: [
            "", "C0:DE:00:12:AB", "C0:DE:00:12:AB:0F:01", "C0:DE:00:12:AB:G0", "C0:DE:0:012:AB:0F", "C0DE0012AB",
        ])
    func refused(text: String) {
        #expect(throws: BluetoothAddressParseError(text: text)) { try BluetoothAddress(parsing: text) }
        #expect(BluetoothAddressParseError(text: text).description.hasPrefix("'\(text)' is not a bluetooth address"))
    }

    @Test("the bootloader's address is the last byte plus one, without carry as the SDK does it")
    func incremented() throws {
        #expect(
            try BluetoothAddress(parsing: "C0:DE:00:00:00:01").incrementedLeastSignificantByte.description
                == "C0:DE:00:00:00:02")
        #expect(
            try BluetoothAddress(parsing: "C0:DE:00:00:EE:FF").incrementedLeastSignificantByte.description
                == "C0:DE:00:00:EE:00")
    }
}

@Suite struct LinkErrorTests {
    @Test("only a lost link and a timeout are worth a new connection")
    func linkFailures() {
        #expect(LinkError.Kind.allCases.filter(\.isLinkFailure) == [.linkLost, .timedOut])
    }

    @Test("each factory makes its kind and keeps the transport's words as the description")
    func factories() {
        let made: [(LinkError, LinkError.Kind)] = [
            (.unavailable("a"), .unavailable), (.deviceNotFound("b"), .deviceNotFound), (.linkLost("c"), .linkLost),
            (.timedOut("d"), .timedOut), (.rejected("e"), .rejected), (.failed("f"), .failed),
        ]
        for (error, kind) in made { #expect(error.kind == kind) }
        #expect(made.map(\.0.description) == ["a", "b", "c", "d", "e", "f"])
        #expect(LinkError.linkLost("x") != LinkError.timedOut("x"))
    }
}

@Suite struct FaultSpecificationTests {
    @Test(
        "every fault of the table parses",
        arguments: [
            ("drop-packet@3", Fault.dropPacket(.occurrence(3))),
            ("duplicate-packet@2+", .duplicatePacket(.fromOccurrence(2))),
            ("corrupt-packet~0.25", .corruptPacket(.random(probability: 0.25))),
            ("drop-notification@1", .dropNotification(.occurrence(1))),
            ("duplicate-notification@4+", .duplicateNotification(.fromOccurrence(4))),
            ("corrupt-notification~1", .corruptNotification(.random(probability: 1))),
            ("disconnect@6000", .disconnect(afterPacketBytes: 6000)),
            ("reboot@0", .reboot(afterPacketBytes: 0)),
            ("stall@5", .stall(afterControlPointWrites: 5)),
            ("mtu@23", .capMTU(23)),
            ("respond@04:0B:05", .respond(opcode: 0x04, result: 0x0B, extendedError: 0x05, trigger: .occurrence(1))),
            ("respond@06:04", .respond(opcode: 0x06, result: 0x04, extendedError: nil, trigger: .occurrence(1))),
            ("misaligned", .rejectMisalignedWrites),
        ])
    func parses(text: String, fault: Fault) throws {
        #expect(try FaultSpecification.parse(text) == fault)
    }

    @Test(
        "a malformed fault names itself and what was wrong",
        arguments: [
            ("drop-packet", "expected NAME@VALUE (or NAME~PROBABILITY)"),
            ("drop-packet@0", "occurrence must be a whole number from 1"),
            ("drop-packet~1.5", "probability must be a number from 0 to 1"),
            ("disconnect@-1", "expected a whole number"),
            ("disconnect~0.5", "expected a whole number"),
            ("mtu@600", "MTU must be 23 to 517"),
            ("respond@04", "expected respond@OPCODE:RESULT[:EXTENDED] in hex, e.g. respond@04:0B:05"),
            ("explode@1", "unknown fault 'explode'"),
        ])
    func refused(text: String, reason: String) {
        #expect {
            try FaultSpecification.parse(text)
        } throws: { error in
            guard let error = error as? FaultSpecification.ParseError else { return false }
            return error.text == text && error.reason == reason && error.description == "fault '\(text)': \(reason)"
        }
    }

    @Test("a plan keeps its seed and faults; the default is no fault")
    func plan() {
        #expect(FaultPlan().faults.isEmpty)
        let plan = FaultPlan(seed: 9, faults: [.capMTU(100)])
        #expect(plan.seed == 9 && plan.faults == [.capMTU(100)])
    }
}

@Suite struct SplitMix64Tests {
    @Test("seed 0 gives the reference sequence of Vigna's splitmix64.c")
    func referenceValues() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("the same seed replays the same values; units lie in 0..<1")
    func replay() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        var other = SplitMix64(seed: 43)
        let values = (0..<100).map { _ in first.next() }
        #expect(values == (0..<100).map { _ in second.next() })
        #expect(values != (0..<100).map { _ in other.next() })
        for _ in 0..<1000 {
            let unit = first.nextUnit()
            #expect(unit >= 0 && unit < 1)
        }
    }
}

@Suite struct VirtualClockTests {
    @Test("sleeping moves virtual time to the deadline at once; time never goes back; copies share one time")
    func virtualTime() async throws {
        let clock = VirtualClock()
        let copy = clock
        #expect(clock.now.offset == .zero)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(90)), tolerance: nil)
        #expect(copy.now.offset == .seconds(90))
        clock.advance(to: .seconds(10))
        #expect(clock.now.offset == .seconds(90))
        #expect(clock.now.duration(to: clock.now.advanced(by: .milliseconds(5))) == .milliseconds(5))
    }

    @Test("a cancelled sleep throws and leaves the time alone")
    func cancelledSleep() async {
        let clock = VirtualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: clock.now.advanced(by: .seconds(5)), tolerance: nil)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now.offset == .zero)
    }
}

@Suite struct LinkModelTests {
    @Test("air time: preamble, access address, header, payload and CRC, at 1 or 2 Mbit/s")
    func airTime() {
        #expect(LinkModel(phy: .le1M).airTime(payload: 0) == .microseconds(80))
        #expect(LinkModel(phy: .le1M).airTime(payload: 27) == .microseconds(296))
        #expect(LinkModel(phy: .le2M).airTime(payload: 0) == .microseconds(44))
        #expect(LinkModel().exchange(payload: 0) == .microseconds(44 + 150 + 44 + 150))
    }

    @Test("a value is split into link-layer PDUs of the data length, with its ATT and L2CAP headers")
    func fragments() {
        #expect(LinkModel(dataLength: 251).fragments(valueLength: 244) == [251])
        #expect(LinkModel(dataLength: 251).fragments(valueLength: 245) == [251, 1])
        #expect(LinkModel(dataLength: 27).fragments(valueLength: 20) == [27])
        #expect(LinkModel(dataLength: 27).fragments(valueLength: 60) == [27, 27, 13])
    }

    @Test("a full connection event moves the next packet to the next event")
    func scheduling() {
        let model = LinkModel(packetsPerConnectionEvent: 2)
        var scheduler = LinkScheduler(model: model, origin: .zero)
        let first = scheduler.send(valueLength: 20, readyAt: .zero)
        let second = scheduler.send(valueLength: 20, readyAt: .zero)
        let third = scheduler.send(valueLength: 20, readyAt: .zero)
        #expect(first < second)
        #expect(second < model.connectionInterval)
        #expect(third >= model.connectionInterval && third < model.connectionInterval * 2)
        // 2M: five 244-byte values fit a 7.5 ms event where 1M fits three.
        #expect(LinkModel().ceiling(valueLength: 244) > LinkModel(phy: .le1M).ceiling(valueLength: 244))
        #expect(
            LinkModel(packetsPerConnectionEvent: 2).ceiling(valueLength: 244) < LinkModel().ceiling(valueLength: 244))
    }
}
