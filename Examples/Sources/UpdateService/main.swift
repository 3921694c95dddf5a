import NRFLoaderBlueZ
import NRFLoaderKit
import NRFLoaderSerial
import NRFLoaderSimulator

#if canImport(Glibc)
    import Glibc
#endif

// A long-running update service: it reads jobs from standard input, one per line, and updates up to
// `--parallel N` devices at once (default 2), reporting each device as its update goes. A job is
//
//     DEVICE FIRMWARE
//
// where DEVICE is a Bluetooth address (AA:BB:CC:DD:EE:FF, through BlueZ), `serial:/dev/ttyACM0`, or a simulated
// device (`sim`, `sim:buttonless`, `sim:legacy`, `sim:legacy-v1`, `sim:smp`), and FIRMWARE is a path or a catalog id.
// Empty lines and lines starting with `#` are skipped. At the end of input it waits for the updates in flight,
// prints one line per job, and exits with 0 when every device confirmed its update, else with the highest exit
// status of the failures (nrfloader's exit statuses: 75 means a retry may succeed).

/// One line of input.
struct Job: Sendable {
    var number: Int
    var device: String
    var firmware: String
}

/// What became of a job.
struct Outcome: Sendable {
    var job: Job
    var result: Result<UpdateSummary, UpdateError>
}

func target(for device: String) throws(UpdateError) -> UpdateTarget {
    if device.hasPrefix("serial:") { return .serial(String(device.dropFirst(7))) }
    if device == "sim" || device.hasPrefix("sim:") {
        let name = device == "sim" ? "secure" : String(device.dropFirst(4))
        var options = SimulatedDeviceOptions()
        options.speed = 0
        options.name = device
        return try .simulated(SimulatedDeviceKind(rawValue: name) ?? .secure, options: options)
    }
    return try .bluetooth(address: device)
}

func run(_ job: Job) async -> Outcome {
    let label = "job \(job.number) \(job.device)"
    do throws(UpdateError) {
        let update = FirmwareUpdate(firmware: try Firmware(job.firmware), target: try target(for: job.device))
        let summary = try await update.run { event in
            switch event {
            case .begin(let plan): print("\(label): \(plan.summary)")
            case .phase(let progress): print("\(label): part \(progress.part)/\(progress.parts) \(progress.phase)")
            default: break
            }
        }
        return Outcome(job: job, result: .success(summary))
    } catch {
        return Outcome(job: job, result: .failure(error))
    }
}

var parallel = 2
let arguments = CommandLine.arguments
if let index = arguments.firstIndex(of: "--parallel"), index + 1 < arguments.count,
    let value = Int(arguments[index + 1]),
    value > 0
{
    parallel = value
}

var outcomes: [Outcome] = []
await withTaskGroup(of: Outcome.self) { group in
    var running = 0
    var number = 0
    while let line = readLine() {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let first = fields.first, !first.hasPrefix("#") else { continue }
        number += 1
        guard fields.count == 2 else {
            print("job \(number): expected 'DEVICE FIRMWARE', got '\(line)'")
            continue
        }
        if running == parallel, let outcome = await group.next() {
            outcomes.append(outcome)
            running -= 1
        }
        let job = Job(number: number, device: fields[0], firmware: fields[1])
        group.addTask { await run(job) }
        running += 1
    }
    for await outcome in group { outcomes.append(outcome) }
}

var status: Int32 = 0
for outcome in outcomes.sorted(by: { $0.job.number < $1.job.number }) {
    switch outcome.result {
    case .success(let summary):
        print("job \(outcome.job.number) \(outcome.job.device): confirmed \(summary.bytesConfirmed) bytes")
    case .failure(let error):
        print("job \(outcome.job.number) \(outcome.job.device): failed (\(error.exitStatus.rawValue)): \(error)")
        status = max(status, error.exitStatus.rawValue)
    }
}
exit(status)
