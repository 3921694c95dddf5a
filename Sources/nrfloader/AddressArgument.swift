import ArgumentParser
import NRFLoaderKit

/// A number given as `0x`-prefixed hex or as decimal, up to 2³² (an exclusive `--end` may be 0x100000000).
struct AddressArgument: ExpressibleByArgument {
    let value: UInt64

    init?(argument: String) {
        let text = argument.replacingOccurrences(of: "_", with: "")
        let parsed: UInt64?
        if text.lowercased().hasPrefix("0x") {
            parsed = UInt64(text.dropFirst(2), radix: 16)
        } else {
            parsed = UInt64(text, radix: 10)
        }
        guard let parsed, parsed <= 1 << 32 else { return nil }
        value = parsed
    }

    var defaultValueDescription: String { "0x" + String(value, radix: 16, uppercase: true) }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
