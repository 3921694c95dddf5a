/// Where an SMP server listens over UDP: `HOST[:PORT]` for IPv4 and host names, `[ADDR]:PORT` or `[ADDR]` for IPv6.
///
/// Zephyr's UDP transport (`smp_udp.c`) listens on `CONFIG_MCUMGR_TRANSPORT_UDP_PORT`, 1337 by default.
package struct UDPEndpoint: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Zephyr's default SMP port (`CONFIG_MCUMGR_TRANSPORT_UDP_PORT`).
    package static let defaultPort: UInt16 = 1337

    /// The host: an IPv4 address, an IPv6 address (without brackets) or a name.
    package var host: String
    /// The port.
    package var port: UInt16

    /// Creates an endpoint.
    ///
    /// - Parameters:
    ///   - host: The host, an IPv6 address without brackets.
    ///   - port: The port.
    package init(host: String, port: UInt16 = UDPEndpoint.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Whether the host is an IPv6 address (it holds a colon).
    package var isIPv6: Bool { host.contains(":") }

    /// `HOST:PORT`, or `[ADDR]:PORT` for IPv6.
    package var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `HOST`, `HOST:PORT`, `[ADDR]` or `[ADDR]:PORT`.
    ///
    /// - Parameter text: The text after `udp:`.
    /// - Throws: ``UDPEndpointError`` naming what is wrong.
    package init(parsing text: String) throws(UDPEndpointError) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .init("'\(text)': '[' without ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .init("'\(text)': expected ':PORT' after ']'") }
                portText = rest.dropFirst()
            }
            guard host.contains(":") else { throw .init("'\(text)': brackets hold an IPv6 address") }
        } else {
            let colons = text.count { $0 == ":" }
            if colons > 1 { throw .init("'\(text)': an IPv6 address goes in brackets, as [ADDR]:PORT") }
            if let colon = text.firstIndex(of: ":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                host = Substring(text)
            }
        }
        guard !host.isEmpty else { throw .init("'\(text)': no host") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:%".contains($0)) }) else {
            throw .init("'\(text)': the host holds a character no address or name has")
        }
        var port = Self.defaultPort
        if let portText {
            guard let value = UInt16(portText), value > 0 else {
                throw .init("'\(text)': the port must be 1 to 65535")
            }
            port = value
        }
        self.init(host: String(host), port: port)
    }
}

/// A UDP endpoint that does not parse: a usage error, naming the text.
package struct UDPEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the text.
    package var description: String

    /// Creates an error.
    ///
    /// - Parameter description: What is wrong, naming the text.
    package init(_ description: String) {
        self.description = description
    }
}
