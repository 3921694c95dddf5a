import NRFLoaderKit
import NRFLoaderSimulator
import NRFLoaderStation
import Synchronization

/// A station serving on a free loopback port in this process, for one test.
struct RunningStation {
    let station: Station
    let task: Task<Void, any Error>
    let client: HTTPTestClient

    /// Starts a station on 127.0.0.1 port 0 with fast simulated devices (two `sim`, one `sim:smp`), no Bluetooth
    /// scan and no serial ports, changed by `configure`.
    static func start(_ configure: (inout StationConfiguration) -> Void = { _ in }) async throws -> RunningStation {
        var configuration = StationConfiguration()
        configuration.port = 0
        configuration.scansBluetooth = false
        configuration.offersSerialPorts = false
        configuration.simulatedDevices = [.secure, .secure, .smp]
        configuration.simulatorOptions.speed = 0
        configure(&configuration)
        let station = try Station(configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { try await station.run { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HTTPTestClient.Failure(description: "no port") }
        return RunningStation(station: station, task: task, client: HTTPTestClient(port: port))
    }

    /// Stops the station and waits for `run` to return.
    func stop() async throws {
        await station.stop()
        try await task.value
    }

    /// Polls `GET /api/jobs/{id}` until the job has left `running`, and returns its JSON text.
    func waitForJob(_ id: Int, timeout: Duration = .seconds(60)) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let answer = try client.get("/api/jobs/\(id)")
            if !answer.text.contains("\"state\":\"running\"") { return answer.text }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HTTPTestClient.Failure(description: "job \(id) still running after \(timeout)")
    }
}
