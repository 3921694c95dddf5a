/// The outcome of checking one init packet's signature.
package enum SignatureCheck: Sendable, Equatable, CustomStringConvertible {
    /// The signature verifies with the key.
    case valid
    /// The packet is signed, but not by this key or not over these bytes.
    case invalid
    /// The packet carries no signature.
    case unsigned

    /// `valid`, `invalid` or `unsigned`.
    package var description: String {
        switch self {
        case .valid: "valid"
        case .invalid: "invalid"
        case .unsigned: "unsigned"
        }
    }
}
