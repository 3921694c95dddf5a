import ArgumentParser
import NRFLoaderKit

/// `nrfloader convert`: Intel HEX to binary, or binary to Intel HEX.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an Intel HEX file to a binary image (or back, with --to hex).",
        discussion: """
            The binary runs from the lowest to the highest address with data; gaps are filled with --fill. \
            Output goes to a temporary file that is renamed into place, so a failure or Ctrl-C never leaves a \
            partial file. A one-line summary goes to stderr (or, with --json, a JSON object to stdout).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case bin
        case hex
    }

    @Argument(help: "The input file, or '-' for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "The output file, or '-' for standard output. Default: INPUT with .bin (.hex).")
    var output: String?

    @Option(help: "The output format.")
    var to: Format = .bin

    @Option(help: "The byte for addresses without data (bin output).")
    var fill: AddressArgument?

    @Option(help: "Drop data below this address (bin output).")
    var start: AddressArgument?

    @Option(help: "Drop data at or above this address (bin output).")
    var end: AddressArgument?

    @Flag(help: "Do what Nordic's package tools do: drop the MBR (< 0x1000) and UICR (>= 0x10000000), pad to 4 bytes.")
    var nordic = false

    @Option(help: "The address of the first byte of a binary input (hex output).")
    var base: AddressArgument?

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        switch to {
        case .hex:
            guard fill == nil, start == nil, end == nil, !nordic else {
                throw ValidationError("--fill, --start, --end and --nordic apply to binary output, not --to hex")
            }
            guard let base else {
                throw ValidationError("--to hex needs --base ADDRESS, the address of the first byte")
            }
            guard base.value < 1 << 32 else { throw ValidationError("--base must be below 0x100000000") }
        case .bin:
            guard base == nil else { throw ValidationError("--base applies to --to hex only") }
            if let fill, fill.value > 0xFF { throw ValidationError("--fill must be one byte (0x00 to 0xFF)") }
            if let start, start.value >= 1 << 32 { throw ValidationError("--start must be below 0x100000000") }
            if let start, let end, start.value >= end.value {
                throw ValidationError(
                    "--start \(start.defaultValueDescription) is not below --end \(end.defaultValueDescription)")
            }
            if let end, end.value == 0 { throw ValidationError("--end must be above 0") }
        }
        if input == "-" && output == nil {
            throw ValidationError("reading standard input needs -o FILE (or -o - for standard output)")
        }
        if outputPath == "-" {
            guard !outputOptions.json else {
                throw ValidationError("--json prints to stdout, so the image must go to a file: use -o FILE")
            }
            guard !Console.isTerminal(1) else {
                throw ValidationError("refusing to write binary data to a terminal; use -o FILE or a pipe")
            }
        }
    }

    /// The output path: `-o`, or the input's name with the output format's extension.
    private var outputPath: String {
        if let output { return output }
        let known = to == .bin ? [".hex", ".ihex", ".ihx"] : [".bin"]
        let lowered = input.lowercased()
        for suffix in known where lowered.hasSuffix(suffix) && !input.hasSuffix("/" + suffix) {
            return String(input.dropLast(suffix.count)) + "." + to.rawValue
        }
        return input + "." + to.rawValue
    }

    func run() throws {
        var destination: OutputFile?
        let makeOutput = { () throws -> any ConversionOutput in
            let file = try OutputFile(path: outputPath)
            destination = file
            return file
        }
        let summary: ConversionSummary
        switch to {
        case .bin:
            var options = BinaryImageOptions()
            options.fill = UInt8(fill?.value ?? 0xFF)
            options.start = UInt32(start?.value ?? 0)
            options.end = end?.value ?? 1 << 32
            options.followsNordicTools = nordic
            summary = try ImageConversion.binary(fromHexFile: input, options: options, output: makeOutput)
        case .hex:
            summary = try ImageConversion.intelHex(
                fromBinaryFile: input, baseAddress: UInt32(base?.value ?? 0), output: makeOutput)
        }
        try destination?.commit()
        if outputOptions.json {
            Console.json(summary.json)
        } else if !outputOptions.quiet {
            Console.note(summary.text.escapedForTerminal)
        }
    }
}
