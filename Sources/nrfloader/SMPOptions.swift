import ArgumentParser
import NRFLoaderKit

/// Options of an SMP (MCUmgr) update: `--target sim:smp` now, an SMP device over BLE or serial later.
struct SMPOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "SMP: what to do after the upload: test-and-confirm (test, reset, confirm once it runs), confirm, test, "
                + "or upload-only."))
    var smpMode: SMPModeArgument = .testAndConfirm

    @Option(
        name: .customLong("image"),
        help: ArgumentHelp(
            "SMP: the image number a lone MCUboot image goes to: 1 for the nRF5340 network core, 3 for it in MCUboot "
                + "serial recovery (default: 0; a package names its own).",
            valueName: "N"))
    var imageNumber: Int?

    @Option(help: "SMP: requests in flight at most (default: the device's buf_count - 1; 1 disables pipelining).")
    var smpWindow: Int?

    @Option(
        help: ArgumentHelp(
            "sim:smp: make the simulated device answer MCUmgr parameters with SIZE,COUNT (e.g. 2475,4); by default "
                + "it answers rc 8, as Zephyr does."))
    var simSmpParams: SimulatedParameters?

    @Option(
        help: ArgumentHelp(
            "sim:smp: how many images the simulated device updates (image 0: slots 0/1, image 1: slots 2/3, ...); "
                + "by default as many as the input needs."))
    var simImages: Int?

    func validate() throws {
        if let smpWindow, smpWindow < 1 { throw ValidationError("--smp-window must be at least 1") }
        if let imageNumber, !(0...15).contains(imageNumber) { throw ValidationError("--image must be 0 to 15") }
        if let simImages, !(1...16).contains(simImages) { throw ValidationError("--sim-images must be 1 to 16") }
    }

    /// The options as the library takes them: these and the engine's `--prn`, `--timeout`, `--retries`.
    func updateOptions(_ engine: EngineOptions) -> UpdateOptions {
        var options = engine.updateOptions
        options.smpMode = UpdateOptions.SMPMode(rawValue: smpMode.rawValue) ?? .testAndConfirm
        options.smpWindow = smpWindow
        return options
    }
}

/// `--smp-mode`, spelled as `UpdateOptions.SMPMode`'s raw values.
enum SMPModeArgument: String, ExpressibleByArgument, CaseIterable {
    case testAndConfirm = "test-and-confirm"
    case confirm
    case test
    case uploadOnly = "upload-only"
}

/// `--sim-smp-params 2475,4`.
struct SimulatedParameters: ExpressibleByArgument {
    /// The SMP buffer size the device reports, in bytes.
    let bufferSize: Int
    /// How many SMP buffers the device reports.
    let bufferCount: Int

    init?(argument: String) {
        let fields = argument.split(separator: ",").map { Int($0) }
        guard fields.count == 2, let size = fields[0], let count = fields[1], (64...65535).contains(size),
            (1...255).contains(count)
        else { return nil }
        bufferSize = size
        bufferCount = count
    }
}
