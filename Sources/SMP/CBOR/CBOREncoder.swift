/// Encodes ``CBORValue``s, definite-length by default (what a client sends), or with indefinite-length maps and
/// arrays (`bf … ff`, `9f … ff`) as Zephyr's zcbor encodes its responses.
package struct CBOREncoder: Sendable {
    /// How containers are delimited.
    package enum ContainerStyle: Sendable, Equatable {
        /// A length in the head (RFC 8949 §3.1): the shortest form.
        case definite
        /// Start byte with additional information 31 and a closing `ff` break (RFC 8949 §3.2.2).
        case indefinite
    }

    /// How maps and arrays are delimited.
    package var containerStyle: ContainerStyle

    /// Creates an encoder.
    ///
    /// - Parameter containerStyle: How maps and arrays are delimited.
    package init(containerStyle: ContainerStyle = .definite) {
        self.containerStyle = containerStyle
    }

    /// The bytes of `value`.
    ///
    /// - Parameter value: The item.
    /// - Returns: Its encoding; integers and lengths always take the shortest head.
    package func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        append(value, to: &output)
        return output
    }

    private func append(_ value: CBORValue, to output: inout [UInt8]) {
        switch value {
        case .unsigned(let number):
            Self.appendHead(major: 0, argument: number, to: &output)
        case .negative(let number):
            Self.appendHead(major: 1, argument: number, to: &output)
        case .bytes(let bytes):
            Self.appendHead(major: 2, argument: UInt64(bytes.count), to: &output)
            output += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            Self.appendHead(major: 3, argument: UInt64(utf8.count), to: &output)
            output += utf8
        case .array(let items):
            appendContainerStart(major: 4, count: items.count, to: &output)
            for item in items { append(item, to: &output) }
            appendContainerEnd(to: &output)
        case .map(let entries):
            appendContainerStart(major: 5, count: entries.count, to: &output)
            for entry in entries {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
            appendContainerEnd(to: &output)
        case .bool(let flag):
            output.append(flag ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        }
    }

    private func appendContainerStart(major: UInt8, count: Int, to output: inout [UInt8]) {
        switch containerStyle {
        case .definite: Self.appendHead(major: major, argument: UInt64(count), to: &output)
        case .indefinite: output.append(major << 5 | 31)
        }
    }

    private func appendContainerEnd(to output: inout [UInt8]) {
        if containerStyle == .indefinite { output.append(0xFF) }
    }

    /// The length of the initial byte and argument ``appendHead(major:argument:to:)`` writes for `argument`.
    static func headSize(argument: Int) -> Int {
        switch argument {
        case 0..<24: 1
        case 24...0xFF: 2
        case 0x100...0xFFFF: 3
        case 0x1_0000...0xFFFF_FFFF: 5
        default: 9
        }
    }

    /// Appends an initial byte and its argument in the shortest form (RFC 8949 §3, "preferred serialization").
    static func appendHead(major: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
        case 24...0xFF:
            output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            output += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) {
                output.append(UInt8((argument >> UInt64(shift)) & 0xFF))
            }
        default:
            output.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8((argument >> UInt64(shift)) & 0xFF))
            }
        }
    }
}
