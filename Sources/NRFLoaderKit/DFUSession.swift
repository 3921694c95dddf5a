import Checksums
package import DFUController
package import DFUTargetAdapter
package import DeviceLink
import HexConverter

/// One nRF5 DFU update over any GATT transport (BlueZ, a serial port, the simulator): the engine run, with its
/// events turned into ``UpdateEvent``s.
package enum DFUSession {
    /// Runs the controller for `firmware` over `transport`.
    ///
    /// - Parameters:
    ///   - firmware: The firmware, init packets made.
    ///   - input: The input's name, as the begin event gives it.
    ///   - address: The device's address (a serial port's placeholder).
    ///   - targetName: The device as the events name it.
    ///   - transport: The open link.
    ///   - configuration: The engine's policy.
    ///   - describeLink: How the link carried the update, once the device was reached.
    ///   - onEvent: Every event.
    /// - Returns: What the device confirmed.
    /// - Throws: ``UpdateError`` wrapping an ``UpdateFailure``.
    package static func run<Transport: GATTTransport>(
        _ firmware: DFUFirmware, input: String, to address: BluetoothAddress, named targetName: String,
        over transport: Transport,
        configuration: DFUConfiguration, describeLink: (@Sendable () -> String)? = nil,
        onEvent: (UpdateEvent) -> Void
    ) async throws(UpdateError) -> UpdateSummary {
        let started = ContinuousClock.now
        onEvent(.begin(plan(firmware, input: input, target: targetName)))
        let controller = DFUController(firmware: firmware, target: address, configuration: configuration)
        var deviceWasReached = false
        let outcome = await DFUTargetAdapter(transport: transport, controller: controller).run { event in
            switch event {
            case .phase(let report):
                if report.phase != .connecting { deviceWasReached = true }
                onEvent(.phase(UpdateProgress(report)))
            case .progress(let report): onEvent(.progress(UpdateProgress(report)))
            case .log(let line): onEvent(.log(line))
            }
        }
        if let link = describeLink?(), deviceWasReached { onEvent(.link(link)) }
        switch outcome {
        case .completed(let summary):
            let result = Self.summary(summary, elapsed: started.duration(to: .now))
            onEvent(.result(result))
            return result
        case .failed(let error, let reached):
            throw UpdateError(UpdateFailure(.dfu(error), deviceWasReached: reached))
        }
    }

    /// The begin event of `firmware`, from the input named `input`.
    package static func plan(_ firmware: DFUFirmware, input: String, target: String) -> UpdatePlan {
        let parts = firmware.parts
        let json = JSONValue.event(
            "begin",
            [
                "input": .string(input), "target": .string(target),
                "parts": .array(
                    parts.map {
                        .object([
                            "type": .string($0.imageType.description), "size": .int($0.image.count),
                            "init_packet_size": .int($0.initPacket.count),
                        ])
                    }),
            ])
        let sizes = parts.map { "\($0.imageType) \($0.image.count) bytes" }.joined(separator: ", ")
        return UpdatePlan(
            input: input, target: target, updateProtocol: "dfu",
            parts: parts.map {
                UpdatePlan.Part(
                    type: $0.imageType.description, size: $0.image.count, initPacketSize: $0.initPacket.count)
            },
            summary: "uploading \(input) to \(target): \(sizes)", json: json)
    }

    /// The result of a completed DFU.
    package static func summary(_ summary: DFUSummary, elapsed: Duration) -> UpdateSummary {
        let json = summary.parts.map { part -> JSONValue in
            .object([
                "type": .string(part.imageType.description),
                "protocol": .string(part.dfuProtocol == .secure ? "secure" : "legacy"),
                "bytes_confirmed": .int(part.bytesConfirmed),
                "crc32": .optional(part.crc32) { .string(hex($0, width: 8)) },
                "confirmation": confirmation(part.evidence),
            ])
        }
        let parts = summary.parts.enumerated().map { index, part in
            let crc = part.crc32.map { ", CRC-32 \(hex($0, width: 8))" } ?? " (legacy DFU reports no CRC)"
            return UpdateSummary.Part(
                name: part.imageType.description, bytesConfirmed: part.bytesConfirmed, crc32: part.crc32, hash: nil,
                summary: "part \(index + 1)/\(summary.parts.count): \(part.imageType) confirmed by the device: "
                    + "\(part.bytesConfirmed) bytes\(crc)",
                dfuProtocol: part.dfuProtocol == .secure ? .secure : .legacy)
        }
        return UpdateSummary(
            parts: parts, elapsed: elapsed,
            json: .event("result", ["parts": .array(json), "elapsed_ms": .int(elapsed.milliseconds)]),
            detail: .dfu(summary))
    }

    /// How the device confirmed a part: the request whose answer did, and what it reported.
    private static func confirmation(_ evidence: ConfirmationEvidence) -> JSONValue {
        switch evidence {
        case .reportedChecksum(let opcode, let crc32):
            .object([
                "method": .string(opcode == .selectObject ? "select_object" : "calculate_checksum"),
                "crc32": .string(hex(crc32, width: 8)), "response": .null,
            ])
        case .validateResponse(let bytes):
            .object([
                "method": .string("validate_firmware"), "crc32": .null,
                "response": .string(bytes.map { String(hex($0, width: 2).dropFirst(2)) }.joined(separator: " ")),
            ])
        }
    }
}
