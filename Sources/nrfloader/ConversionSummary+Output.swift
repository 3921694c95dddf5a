import NRFLoaderKit

/// What `convert` reports: one line on stderr, or one JSON object on stdout.
extension ConversionSummary {
    var text: String {
        let regionList = regions.map(\.description).joined(separator: ", ")
        let regionWord = regions.count == 1 ? "region" : "regions"
        let start = startAddress.map { ", start \($0)" } ?? ""
        return "\(input) -> \(output): \(size) bytes at \(hex(baseAddress, width: 8)), \(regions.count) \(regionWord) "
            + "(\(regionList))\(start), sha256 \(hexString(sha256))"
    }

    var json: JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion),
            "command": .string("convert"),
            "input": .string(input),
            "output": .string(output),
            "format": .string(format.rawValue),
            "base_address": .int(Int(baseAddress)),
            "size": .int(size),
            "regions": .array(
                regions.map {
                    .object(["start": .int(Int($0.start)), "end": .int(Int($0.end)), "size": .int($0.count)])
                }
            ),
            "start_address": .optional(startAddress) { address in
                switch address {
                case .linear(let value):
                    .object(["type": .string("linear"), "address": .int(Int(value))])
                case .segment(let codeSegment, let instructionPointer):
                    .object([
                        "type": .string("segment"), "code_segment": .int(Int(codeSegment)),
                        "instruction_pointer": .int(Int(instructionPointer)),
                    ])
                }
            },
            "sha256": .string(hexString(sha256)),
        ])
    }
}
