import SMPUDP
import Testing

/// `udp:` targets as the command line and `UDPDeviceAddress` parse them (after `udp:`).
@Suite struct UDPEndpointTests {
    @Test(
        "valid endpoints, the port 1337 unless given",
        arguments: [
            ("192.0.2.10", "192.0.2.10", 1337, "192.0.2.10:1337"),
            ("192.0.2.10:7000", "192.0.2.10", 7000, "192.0.2.10:7000"),
            ("board-7.local", "board-7.local", 1337, "board-7.local:1337"),
            ("[::1]:1337", "::1", 1337, "[::1]:1337"),
            ("[fe80::1%eth0]", "fe80::1%eth0", 1337, "[fe80::1%eth0]:1337"),
            ("[2001:db8::10]:65535", "2001:db8::10", 65535, "[2001:db8::10]:65535"),
        ] as [(String, String, Int, String)])
    func valid(text: String, host: String, port: Int, description: String) throws {
        let endpoint = try UDPEndpoint(parsing: text)
        #expect(endpoint.host == host && Int(endpoint.port) == port)
        #expect(endpoint.description == description)
        #expect(try UDPEndpoint(parsing: endpoint.description) == endpoint)
    }

    @Test(
        "invalid endpoints name the problem",
        arguments: [
            ("", "'': no host"),
            (":1337", "':1337': no host"),
            ("::1", "'::1': an IPv6 address goes in brackets, as [ADDR]:PORT"),
            ("[::1", "'[::1': '[' without ']'"),
            ("[::1]1337", "'[::1]1337': expected ':PORT' after ']'"),
            ("[192.0.2.1]:1", "'[192.0.2.1]:1': brackets hold an IPv6 address"),
            ("host:0", "'host:0': the port must be 1 to 65535"),
            ("host:65536", "'host:65536': the port must be 1 to 65535"),
            ("host:x", "'host:x': the port must be 1 to 65535"),
            ("ho st", "'ho st': the host holds a character no address or name has"),
        ])
    func invalid(text: String, message: String) {
        #expect(throws: UDPEndpointError(message)) { try UDPEndpoint(parsing: text) }
    }
}
