import ArgumentParser
import NRFLoaderKit
import NRFLoaderSimulator

#if canImport(Glibc)
    import Glibc
#endif

/// `--target sim[:KIND]`: which simulated device, and the options that shape it.
struct SimulatorOptions: ParsableArguments {
    @Option(help: "Simulation pace: 1 = real time, 10 = ten times faster, 0 = as fast as possible.")
    var simSpeed: Double = 1

    @Option(help: "Inject a fault into the simulated device (repeatable), e.g. disconnect@6000, drop-packet@40.")
    var simFault: [String] = []

    @Option(help: "Seed for random faults (drop-packet~0.01).")
    var simSeed: UInt64 = 0

    @Option(help: "Write each image the simulated device activated to DIR (application.bin, …), also after a failure.")
    var simSaveImages: String?

    func validate() throws {
        guard simSpeed >= 0 else { throw ValidationError("--sim-speed must be 0 or more") }
        for text in simFault {
            if let problem = SimulatedDeviceKind.secure.faultProblem(text) {
                throw ValidationError("--sim-fault: \(problem)")
            }
        }
    }

    /// `--sim-speed`, `--sim-fault`, `--sim-seed` as the library takes them.
    var deviceOptions: SimulatedDeviceOptions {
        var options = SimulatedDeviceOptions()
        options.speed = simSpeed
        options.faults = simFault
        options.seed = simSeed
        return options
    }

    /// Writes each image of a simulated device to `--sim-save-images`, each whole or not at all; with `folder` (one
    /// device of a fleet), into that folder of it.
    func save(_ images: [SimulatedTarget.Image], folder: String? = nil) throws {
        guard var directory = simSaveImages else { return }
        if let folder {
            directory += "/" + folder
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
                throw ToolError.cannotCreateOutput(path: directory, reason: ToolError.describeErrno())
            }
        }
        for image in images {
            let output = try OutputFile(path: directory + "/" + image.name + ".bin")
            try output.write(image.bytes)
            try output.commit()
        }
    }

    /// Makes sure `--sim-save-images` names a directory, creating it when it does not exist, before anything is
    /// sent (a single upload and a fleet alike).
    func checkImageDirectory() throws {
        if let directory = simSaveImages { try Self.makeImageDirectory(directory) }
    }

    /// Creates `directory` (one level, as `mkdir` does) unless it exists; fails unless it is then a directory.
    ///
    /// - Parameter directory: The directory images are saved to.
    /// - Throws: ``ToolError/cannotCreateOutput(path:reason:)``.
    static func makeImageDirectory(_ directory: String) throws {
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw ToolError.cannotCreateOutput(path: directory, reason: ToolError.describeErrno())
        }
        var information = stat()
        guard stat(directory, &information) == 0 else {
            throw ToolError.cannotCreateOutput(path: directory, reason: ToolError.describeErrno())
        }
        guard information.st_mode & S_IFMT == S_IFDIR else {
            throw ToolError.cannotCreateOutput(path: directory, reason: "not a directory")
        }
    }
}
