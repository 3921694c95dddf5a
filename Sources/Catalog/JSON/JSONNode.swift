/// A JSON value with the line and column where it starts, so that a schema error can point into the file.
struct JSONNode {
    /// The value, with its children.
    indirect enum Value {
        case null
        case bool(Bool)
        /// An integer without fraction or exponent that fits in 64 bits; other numbers are ``number(_:)``.
        case integer(Int64)
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in file order; keys are unique (the parser rejects duplicates).
        case object([(key: String, value: JSONNode)])
    }

    var value: Value
    /// The 1-based line of the value's first character.
    var line: Int
    /// The 1-based column (in bytes) of the value's first character.
    var column: Int

    /// A short name of the value's JSON type, for messages ("expected an integer, found a string").
    var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
