/// `dfu.Command` of `dfu-cc.proto`: an opcode and the command it carries.
package struct Command: Sendable, Equatable {
    /// `dfu.ResetCommand`: never written by nrfutil, decoded for completeness.
    package struct ResetCommand: Sendable, Equatable {
        /// Field 1, required `uint32`.
        package var timeout: UInt32

        /// Creates a reset command.
        ///
        /// - Parameter timeout: Field 1.
        package init(timeout: UInt32) {
            self.timeout = timeout
        }
    }

    /// Field 1, `OpCode`.
    package var opCode: OpCode?
    /// Field 2 (`init` in the proto), `InitCommand`.
    package var initCommand: InitCommand?
    /// Field 3, `ResetCommand`.
    package var reset: ResetCommand?

    /// Creates a command; nil leaves a field out.
    ///
    /// - Parameters:
    ///   - opCode: Field 1.
    ///   - initCommand: Field 2.
    ///   - reset: Field 3.
    package init(opCode: OpCode? = nil, initCommand: InitCommand? = nil, reset: ResetCommand? = nil) {
        self.opCode = opCode
        self.initCommand = initCommand
        self.reset = reset
    }

    /// The serialized message, fields in number order.
    package func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        if let opCode { writer.appendVarintField(1, UInt64(opCode.rawValue)) }
        if let initCommand { writer.appendBytesField(2, initCommand.encoded()) }
        if let reset {
            var message = ProtobufWriter()
            message.appendVarintField(1, UInt64(reset.timeout))
            writer.appendBytesField(3, message.bytes)
        }
        return writer.bytes
    }

    /// Decodes a command and notes where its `init` payload lies (the bytes a signature covers).
    ///
    /// - Returns: The command, and the range of the last `init` field's payload in the reader's array, if any.
    static func read(
        _ reader: inout ProtobufReader,
        file: String
    ) throws(DFUPackageError) -> (command: Command, initRange: Range<Int>?) {
        var command = Command()
        var initRange: Range<Int>?
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag.field {
            case 1:
                try reader.require(tag, is: .varint, field: "Command.op_code")
                command.opCode = try reader.readEnum(OpCode.self, field: "Command.op_code")
            case 2:
                try reader.require(tag, is: .lengthDelimited, field: "Command.init")
                var message = try reader.readMessage()
                let start = message.position
                command.initCommand = try InitCommand(reading: &message, file: file)
                initRange = start..<message.position
            case 3:
                try reader.require(tag, is: .lengthDelimited, field: "Command.reset")
                var message = try reader.readMessage()
                var timeout: UInt32?
                while !message.isAtEnd {
                    let inner = try message.readTag()
                    if inner.field == 1 {
                        try message.require(inner, is: .varint, field: "ResetCommand.timeout")
                        timeout = try message.readUInt32(field: "ResetCommand.timeout")
                    } else {
                        try message.skip(inner.wireType)
                    }
                }
                guard let timeout else { throw .missingField(file: file, field: "ResetCommand.timeout") }
                command.reset = ResetCommand(timeout: timeout)
            default:
                try reader.skip(tag.wireType)
            }
        }
        return (command, initRange)
    }
}
