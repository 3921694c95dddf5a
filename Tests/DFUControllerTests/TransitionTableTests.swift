import Testing

@testable import DFUController

#if canImport(Glibc)
    import Glibc
#endif

/// Applies the inputs of `lines` from time `start`, ignoring the actions (the transcripts check those); returns the
/// time after them.
@discardableResult
func drive(_ controller: inout DFUController, _ lines: [Line], from start: Duration = .zero) -> Duration {
    var now = start
    for line in lines {
        switch line {
        case .start: _ = controller.start(at: now)
        case .connected(let mtu, let characteristics):
            _ = controller.connected(mtu: mtu, characteristics: Set(characteristics), at: now)
        case .connectedAt(let mtu, let characteristics, let address):
            _ = controller.connected(mtu: mtu, characteristics: Set(characteristics), address: address, at: now)
        case .notifies(let characteristic, let bytes):
            _ = controller.receive(notification: bytes, from: characteristic, at: now)
        case .reads(let bytes): _ = controller.readCompleted(bytes, at: now)
        case .acknowledged: _ = controller.writeCompleted(at: now)
        case .passes(let duration): now += duration
        case .fires(let timer): _ = controller.timerFired(timer, at: now)
        case .cancels: _ = controller.cancel(at: now)
        case .disconnects: _ = controller.transportDisconnected(at: now)
        case .transportFails(let failure): _ = controller.transportFailed(failure, at: now)
        case .does: break
        }
    }
    return now
}

/// One witness per table row: how to get there, and the input.
struct Witness: Sendable {
    var controller: @Sendable () -> DFUController
    var lines: [Line]
}

@Suite struct TransitionTableTests {
    static let image = testImage(8)
    static let secureApp: @Sendable () -> DFUController = { secureController(image: image, prn: 0) }
    static let legacy: @Sendable () -> DFUController = { legacyController(image: image, initPacket: hex("66 05")) }
    static let start: [Line] = [.start]
    static let inSecure: [Line] = [.start, .connected(mtu: 23, [.secureControlPoint, .securePacket])]
    static let inLegacy: [Line] = [.start, .connected(mtu: 23, [.legacyControlPoint, .legacyPacket])]
    static let readingVersion: [Line] = [.start, .connected(mtu: 23, [.legacyControlPoint, .legacyVersion])]
    static let entering: [Line] = [.start, .connected(mtu: 23, [.buttonlessWithBonds])]
    static let jumping: [Line] = readingVersion + [.reads(hex("01 00"))]
    static let finalExecute: [Line] =
        inSecure + [
            notifies(.secureControlPoint, "60 06 01 00 01 00 00 00 00 00 00 00 00 00 00"),
            notifies(.secureControlPoint, "60 01 01"), notifies(.secureControlPoint, "60 02 01"),
            notifies(.secureControlPoint, "60 03 01 0A 00 00 00 " + le32(crc(secureInit, 10))),
            notifies(.secureControlPoint, "60 04 01"), notifies(.secureControlPoint, "60 02 01"),
            notifies(.secureControlPoint, "60 06 01 00 10 00 00 00 00 00 00 00 00 00 00"),
            notifies(.secureControlPoint, "60 01 01"), .fires(.objectPreparation),
            notifies(.secureControlPoint, "60 03 01 08 00 00 00 " + le32(crc(image, 8))),
        ]
    static let legacyActivating: [Line] =
        inLegacy + [
            notifies(.legacyControlPoint, "10 01 01"), notifies(.legacyControlPoint, "10 02 01"),
            notifies(.legacyControlPoint, "10 03 01"), notifies(.legacyControlPoint, "10 04 01"),
        ]

    static let witnesses: [String: Witness] = [
        "idle|start": Witness(controller: secureApp, lines: [.start]),
        "idle|cancel": Witness(controller: secureApp, lines: [.cancels]),
        "connecting|connected to a Secure bootloader": Witness(controller: secureApp, lines: inSecure),
        "connecting|connected to a Secure buttonless application with a bootloader name set": Witness(
            controller: {
                var configuration = DFUConfiguration()
                configuration.bootloaderName = "Dfu1"
                return DFUController(
                    firmware: firmware(initPacket: secureInit, image: image), target: device,
                    configuration: configuration)
            }, lines: [.start, .connected(mtu: 23, [.buttonlessWithoutBonds])]),
        "connecting|connected to a Secure buttonless application": Witness(controller: secureApp, lines: entering),
        "connecting|connected to a legacy target with a Version characteristic": Witness(
            controller: legacy, lines: readingVersion),
        "connecting|connected to a legacy target without a Version characteristic": Witness(
            controller: legacy, lines: inLegacy),
        "connecting|connected to a device without DFU": Witness(
            controller: secureApp, lines: [.start, .connected(mtu: 23, [])]),
        "connecting|connection timer fires": Witness(controller: secureApp, lines: start + [.fires(.connection)]),
        "connecting|cancel": Witness(controller: secureApp, lines: start + [.cancels]),
        "connecting|connection lost after the device was reached": Witness(
            controller: secureApp,
            lines: inSecure + [
                .disconnects,
                .transportFails(TransportFailure(operation: .connect, kind: .linkLost, cause: "dropped")),
            ]),
        "readingVersion|version 0.1 read": Witness(controller: legacy, lines: jumping),
        "readingVersion|other version read": Witness(
            controller: { legacyController(image: image) },
            lines: readingVersion.dropLast() + [
                .connected(mtu: 23, [.legacyControlPoint, .legacyPacket, .legacyVersion]), .reads(hex("08 00")),
            ]),
        "namingBootloader|success indication": Witness(
            controller: {
                var configuration = DFUConfiguration()
                configuration.bootloaderName = "Dfu1"
                return DFUController(
                    firmware: firmware(initPacket: secureInit, image: image), target: device,
                    configuration: configuration)
            },
            lines: [
                .start, .connected(mtu: 23, [.buttonlessWithoutBonds]), notifies(.buttonlessWithoutBonds, "20 02 01"),
            ]),
        "enteringBootloader|success indication": Witness(
            controller: secureApp, lines: entering + [notifies(.buttonlessWithBonds, "20 01 01")]),
        "enteringBootloader|link lost": Witness(controller: secureApp, lines: entering + [.disconnects]),
        "enteringBootloader|error indication": Witness(
            controller: secureApp, lines: entering + [notifies(.buttonlessWithBonds, "20 01 04")]),
        "jumpingLegacy|write acknowledged": Witness(controller: legacy, lines: jumping + [.acknowledged]),
        "jumpingLegacy|link lost": Witness(controller: legacy, lines: jumping + [.disconnects]),
        "secure|final Execute succeeds on the last part": Witness(
            controller: secureApp, lines: finalExecute + [notifies(.secureControlPoint, "60 04 01")]),
        "secure|final Execute succeeds with parts left": Witness(
            controller: {
                let parts = [
                    (try? DFUFirmware.Part(imageType: .softDevice, initPacket: secureInit, image: image)),
                    (try? DFUFirmware.Part(imageType: .application, initPacket: secureInit, image: image)),
                ].compactMap { $0 }
                var configuration = DFUConfiguration()
                configuration.packetReceiptNotificationInterval = 0
                return DFUController(
                    firmware: (try? DFUFirmware(parts: parts)) ?? firmware(initPacket: [], image: image),
                    target: device,
                    configuration: configuration)
            }, lines: finalExecute + [notifies(.secureControlPoint, "60 04 01")]),
        "secure|error response": Witness(
            controller: secureApp, lines: inSecure + [notifies(.secureControlPoint, "60 06 03")]),
        "secure|malformed notification": Witness(
            controller: secureApp, lines: inSecure + [notifies(.secureControlPoint, "60")]),
        "secure|response timer fires while a receipt is due": Witness(
            controller: { secureController(image: testImage(160)) { $0.objectPreparationDelay = .zero } },
            lines: Array(firstObjectLines(testImage(160)).filter(\.isInput).dropLast()) + [.fires(.response)]),
        "secure|response timer fires before the answer's deadline": Witness(
            controller: secureApp, lines: inSecure + [.fires(.response)]),
        "secure|response timer fires at the answer's deadline": Witness(
            controller: secureApp, lines: inSecure + [.passes(.seconds(20)), .fires(.response)]),
        "secure|write times out": Witness(
            controller: secureApp,
            lines: inSecure + [
                .transportFails(
                    TransportFailure(operation: .write(.secureControlPoint), kind: .timedOut, cause: "no response"))
            ]),
        "secure|link lost": Witness(controller: secureApp, lines: inSecure + [.disconnects]),
        "secure|cancel": Witness(controller: secureApp, lines: inSecure + [.cancels]),
        "legacy|link lost after Activate on the last part": Witness(
            controller: legacy, lines: legacyActivating + [.acknowledged, .disconnects]),
        "legacy|Activate answered with an error": Witness(
            controller: legacy, lines: legacyActivating + [notifies(.legacyControlPoint, "10 05 04")]),
        "legacy|Start DFU answered invalidState": Witness(
            controller: legacy, lines: inLegacy + [notifies(.legacyControlPoint, "10 01 02")]),
        "legacy|response timer fires": Witness(controller: legacy, lines: inLegacy + [.fires(.response)]),
        "legacy|error response": Witness(
            controller: legacy, lines: inLegacy + [notifies(.legacyControlPoint, "10 01 04")]),
        "legacy|link lost": Witness(controller: legacy, lines: inLegacy + [.disconnects]),
        "legacy|cancel": Witness(controller: legacy, lines: inLegacy + [.cancels]),
        "awaitingDisconnect|link lost": Witness(
            controller: secureApp, lines: entering + [notifies(.buttonlessWithBonds, "20 01 01"), .disconnects]),
        "awaitingDisconnect|notification": Witness(
            controller: secureApp,
            lines: inSecure + [.passes(.seconds(20)), .fires(.response), notifies(.secureControlPoint, "60 06 01")]),
        "awaitingDisconnect|disconnection timer fires": Witness(
            controller: secureApp,
            lines: entering + [notifies(.buttonlessWithBonds, "20 01 01"), .fires(.disconnection)]),
        "cancelling|write acknowledged": Witness(controller: secureApp, lines: inSecure + [.cancels, .acknowledged]),
        "cancelling|link lost": Witness(controller: secureApp, lines: inSecure + [.cancels, .disconnects]),
        "finished|any input": Witness(
            controller: secureApp,
            lines: finalExecute + [
                notifies(.secureControlPoint, "60 04 01"), .disconnects, .cancels, .fires(.response),
            ]),
        "failed|any input": Witness(
            controller: secureApp,
            lines: inSecure + [
                notifies(.secureControlPoint, "60 06 03"), .fires(.response), .disconnects, .cancels,
                notifies(.secureControlPoint, "60 06 01"),
            ]),
    ]

    /// The rows of the DocC table: (from, input, to).
    static func tableRows() throws -> [(String, String, String)] {
        let path = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let file = "/" + path + "/Sources/DFUController/DFUController.docc/DFUController.md"
        let text = try #require(readFile(file), "cannot read \(file)")
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters() }
            guard line.hasPrefix("| "), cells.count == 3, cells[0] != "From", cells[0] != "---" else { return nil }
            return (cells[0], cells[1], cells[2])
        }
    }

    @Test("every row of the documented transition table holds")
    func walkTable() throws {
        let rows = try Self.tableRows()
        #expect(rows.count == Self.witnesses.count, "table rows and witnesses differ in number")
        for (from, input, to) in rows {
            let witness = try #require(Self.witnesses["\(from)|\(input)"], "no witness for row '\(from) | \(input)'")
            var controller = witness.controller()
            let inputIndex = witness.lines.lastIndex { $0.isInput } ?? 0
            let setup = Array(witness.lines[..<inputIndex])
            let now = drive(&controller, setup)
            #expect(controller.stateName == from, "row '\(from) | \(input)': setup reached \(controller.stateName)")
            drive(&controller, Array(witness.lines[inputIndex...]), from: now)
            #expect(controller.stateName == to, "row '\(from) | \(input)': expected \(to), got \(controller.stateName)")
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Reads a UTF-8 text file with the C library, since the test target does not import Foundation.
func readFile(_ path: String) -> String? {
    guard let handle = fopen(path, "r") else { return nil }
    defer { fclose(handle) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, handle)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
