import ArgumentParser
import NRFLoaderKit

/// The options of `upload` that only a run over several devices uses (`--target` and `--adapter`, repeatable, live
/// on ``UploadCommand`` itself).
struct FleetOptions: ParsableArguments {
    @Flag(help: "With --name REGEX: update every device whose advertised name matches, not exactly one.")
    var all = false

    @Option(help: "With --name REGEX --all: stop scanning once this many matching devices are found.")
    var count: Int?

    @Option(
        help: ArgumentHelp(
            "Read device addresses from FILE, one per line ('-' for standard input; scan --json lines work too).",
            valueName: "file"))
    var targetsFrom: String?

    @Option(
        help: ArgumentHelp(
            "Update at most N devices at once per adapter (default \(Self.defaultParallel)); the rest wait their turn.",
            valueName: "n"))
    var parallel: Int?

    @Option(
        help: ArgumentHelp(
            "A fault for the Nth simulated --target only (1-based, repeatable), e.g. 2=respond@0x01:0x07.",
            valueName: "n=fault"))
    var simFaultOn: [String] = []

    /// The default of `--parallel`: BlueZ keeps 4 to 8 LE connections per adapter with common controllers; 4 leaves
    /// the controller room for the reconnect of a buttonless jump.
    static let defaultParallel = 4

    /// Whether any option asks for several devices.
    var asksForSeveralDevices: Bool {
        all || targetsFrom != nil || count != nil || parallel != nil || !simFaultOn.isEmpty
    }

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let parallel, parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        if count != nil, !all { throw ValidationError("--count needs --name REGEX --all") }
        for text in simFaultOn { _ = try Self.parseFaultOn(text) }
    }

    /// `N=FAULT` of `--sim-fault-on`.
    static func parseFaultOn(_ text: String) throws -> (device: Int, fault: String) {
        guard let equals = text.firstIndex(of: "="), let device = Int(text[..<equals]), device >= 1 else {
            throw ValidationError("--sim-fault-on: '\(text)' is not N=FAULT with N the 1-based simulated target")
        }
        return (device, String(text[text.index(after: equals)...]))
    }
}
