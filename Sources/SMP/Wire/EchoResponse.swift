/// The answer to OS echo (`os_mgmt_echo`, Zephyr `os_mgmt.c`): `{"r": text}`, the request's `d` sent back.
package struct EchoResponse: Sendable, Equatable {
    /// The text the device echoed.
    package var text: String

    /// Creates a response.
    ///
    /// - Parameter text: The echoed text.
    package init(text: String) {
        self.text = text
    }

    /// Reads a successful answer's body.
    ///
    /// - Parameter body: The body.
    /// - Throws: ``SMPFrameError`` when `r` is missing or not text.
    package init(body: CBORValue) throws(SMPFrameError) {
        switch body["r"] {
        case .text(let text)?: self.text = text
        case nil: throw .badField(name: "r", problem: "is missing")
        case let other?: throw .badField(name: "r", problem: "is \(other.kindDescription), not text")
        }
    }

    /// The body a device answers with.
    package var body: CBORValue { .map([CBORMapEntry("r", .text(text))]) }
}
