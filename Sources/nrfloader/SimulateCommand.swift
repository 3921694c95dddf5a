import ArgumentParser

/// `nrfloader simulate`: placeholder, being written.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Not yet available.")

    func run() async throws {}
}
