import Testing

@testable import DFUController

@Suite struct TransportFailureTests {
    @Test("names the operation before the transport's cause")
    func prefixesTheOperation() {
        let failure = TransportFailure(
            operation: .write(.secureControlPoint), kind: .timedOut, cause: "no reply to 'WriteValue' within 20 s")
        #expect(
            failure.description
                == "write to \(DFUCharacteristic.secureControlPoint): no reply to 'WriteValue' within 20 s")
    }

    @Test("does not name the operation twice when the cause starts with it")
    func doesNotRepeatTheOperation() {
        let write = TransportFailure(
            operation: .write(.securePacket), kind: .timedOut,
            cause: "write to \(DFUCharacteristic.securePacket): no reply to 'WriteValue' within 20 s")
        #expect(write.description == "write to \(DFUCharacteristic.securePacket): no reply to 'WriteValue' within 20 s")
        let connect = TransportFailure(
            operation: .connect, kind: .linkLost, cause: "connect to C0:DE:00:00:00:01: the link dropped")
        #expect(connect.description == "connect to C0:DE:00:00:00:01: the link dropped")
    }
}
