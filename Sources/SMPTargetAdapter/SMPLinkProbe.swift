import SMP

/// The OS echo a transport sends to learn that a device answers SMP on a new connection (a serial console, a UDP
/// socket): the request, and how its answers are told from the session's own traffic.
package enum SMPLinkProbe {
    /// The text each probe echoes.
    package static let text = "nrfloader"

    /// The probe with `sequence`, as bytes to send.
    package static func request(sequence: UInt8) -> [UInt8] {
        SMPRequest.echo(text).frame(sequence: sequence, version: .v2).encoded()
    }

    /// The sequence number of `frame` if it answers an OS echo, whatever its text (a device built without echo
    /// answers its probe with rc 8, which counts too); `nil` for any other frame.
    package static func answeredSequence(_ frame: [UInt8]) -> UInt8? {
        guard let header = try? SMPHeader(decoding: frame), header.operation.isResponse,
            header.group == SMPCommand.echo.group.rawValue, header.command == SMPCommand.echo.id
        else { return nil }
        return header.sequence
    }

    /// Whether `frame` is the late answer to one of `sequences`' probes, echoing the probe's text: a frame the
    /// session after the probe must not take for its own.
    package static func isLateAnswer(_ frame: [UInt8], toOneOf sequences: Set<UInt8>) -> Bool {
        guard let sequence = answeredSequence(frame), sequences.contains(sequence),
            let answer = try? SMPFrame(decoding: frame)
        else { return false }
        return answer.body["r"] == .text(text)
    }
}
