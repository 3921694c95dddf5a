import NRFLoaderKit
import Synchronization

/// Every job since the station started, the devices they keep busy, and the streams that follow them.
///
/// The lock guards plain values only: an update's events arrive from its task synchronously, and a subscriber's
/// continuation takes a line without waiting.
final class JobBoard: Sendable {
    /// Why a job could not start.
    enum Refusal: Error, Sendable {
        /// The device runs another job.
        case busy(device: String, job: Int)
        /// The station is shutting down.
        case stopping
    }

    private struct Board: Sendable {
        var jobs: [Int: StationJob] = [:]
        var nextID = 1
        var busy: [String: Int] = [:]
        var tasks: [Int: Task<Void, Never>] = [:]
        var subscribers: [Int: [Int: AsyncStream<String>.Continuation]] = [:]
        var nextSubscriber = 1
        var waiters: [Int: [CheckedContinuation<Void, Never>]] = [:]
        var isAccepting = true
    }

    /// How many ended jobs are kept, with their lines: the oldest goes when another ends.
    private let keptEndedJobs: Int
    private let board = Mutex(Board())

    init(keptEndedJobs: Int) {
        self.keptEndedJobs = keptEndedJobs
    }
    private let clock = ContinuousClock()

    /// Every job, newest first.
    func all() -> [StationJob] {
        board.withLock { $0.jobs.values.sorted { $0.id > $1.id } }
    }

    func job(_ id: Int) -> StationJob? {
        board.withLock { $0.jobs[id] }
    }

    var now: ContinuousClock.Instant { clock.now }

    /// Whether a job runs on a Bluetooth device.
    var hasRunningBluetoothJob: Bool {
        board.withLock { board in board.busy.values.contains { board.jobs[$0]?.isBluetooth == true } }
    }

    /// Starts one job per update, all or none: a busy device refuses the whole request.
    func start(_ requests: [(device: StationDevice, update: FirmwareUpdate)]) throws(Refusal) -> [StationJob] {
        try board.withLock { (board) throws(Refusal) -> [StationJob] in
            guard board.isAccepting else { throw .stopping }
            for request in requests {
                if let job = board.busy[request.device.id] { throw .busy(device: request.device.label, job: job) }
            }
            var started: [StationJob] = []
            for request in requests {
                let job = StationJob(
                    id: board.nextID, deviceID: request.device.id, deviceLabel: request.device.label,
                    firmwareName: request.update.firmware.name, isBluetooth: request.device.transport == .bluetooth,
                    started: clock.now)
                board.nextID += 1
                board.jobs[job.id] = job
                board.busy[request.device.id] = job.id
                // The task waits for this lock before its first event, so it is stored before it can end.
                let update = request.update
                board.tasks[job.id] = Task { await self.run(update, job: job.id) }
                started.append(job)
            }
            return started
        }
    }

    private func run(_ update: FirmwareUpdate, job id: Int) async {
        var lines = UpdateJSONLines()
        do throws(UpdateError) {
            let summary = try await update.run { event in
                let objects = lines.objects(for: event, at: clock.now)
                append(objects.map(\.text), to: id) { job in
                    switch event {
                    case .phase(let progress), .progress(let progress): job.progress = progress
                    default: break
                    }
                }
            }
            let confirmed = summary.smpOutcome.map { $0.state == .confirmed } ?? true
            end(id, state: confirmed ? .confirmed : .completed, status: .success) { job in
                job.message = summary.parts.map(\.summary).joined(separator: "; ")
                if let outcome = summary.smpOutcome, outcome.state != .confirmed {
                    job.message = (job.message ?? "") + " (image \(outcome.state.rawValue))"
                }
            }
        } catch {
            let line = UpdateJSONLines.errorObject(message: error.message, exitStatus: error.exitStatus.rawValue).text
            append([line], to: id) { _ in }
            end(id, state: error.isCancellation ? .cancelled : .failed, status: error.exitStatus) { job in
                job.message = error.message
            }
        }
    }

    private func append(_ lines: [String], to id: Int, update: (inout StationJob) -> Void) {
        board.withLock { board in
            guard var job = board.jobs[id] else { return }
            job.lines += lines
            update(&job)
            board.jobs[id] = job
            for continuation in board.subscribers[id, default: [:]].values {
                for line in lines { continuation.yield(line) }
            }
        }
    }

    private func end(_ id: Int, state: StationJob.State, status: ExitStatus, update: (inout StationJob) -> Void) {
        let waiters = board.withLock { board -> [CheckedContinuation<Void, Never>] in
            guard var job = board.jobs[id] else { return [] }
            job.state = state
            job.exitStatus = status
            job.elapsed = job.started.duration(to: clock.now)
            update(&job)
            board.jobs[id] = job
            board.busy[job.deviceID] = nil
            board.tasks[id] = nil
            let ended = board.jobs.values.filter(\.isEnded).map(\.id).sorted()
            for old in ended.dropLast(keptEndedJobs) { board.jobs[old] = nil }
            for continuation in board.subscribers.removeValue(forKey: id)?.values ?? [:].values {
                continuation.finish()
            }
            return board.waiters.removeValue(forKey: id) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels a running job as Ctrl-C cancels `upload`: the device is told to abort.
    ///
    /// - Returns: The job, or `nil` for an unknown id.
    func cancel(_ id: Int) -> StationJob? {
        let (job, task) = board.withLock { ($0.jobs[id], $0.tasks[id]) }
        task?.cancel()
        return job
    }

    /// The lines so far and, for a running job, a stream of the lines to come (it finishes when the job ends).
    func follow(_ id: Int) -> (lines: [String], later: AsyncStream<String>?, unsubscribe: @Sendable () -> Void)? {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let subscription = board.withLock { board -> (lines: [String], key: Int?)? in
            guard let job = board.jobs[id] else { return nil }
            if job.isEnded { return (job.lines, nil) }
            let key = board.nextSubscriber
            board.nextSubscriber += 1
            board.subscribers[id, default: [:]][key] = continuation
            return (job.lines, key)
        }
        guard let subscription else { return nil }
        guard let key = subscription.key else {
            continuation.finish()
            return (subscription.lines, nil, {})
        }
        let unsubscribe: @Sendable () -> Void = { [weak self] in
            _ = self?.board.withLock { $0.subscribers[id]?.removeValue(forKey: key) }
        }
        return (subscription.lines, stream, unsubscribe)
    }

    /// Waits until job `id` has ended.
    func waitForEnd(_ id: Int) async {
        await withCheckedContinuation { continuation in
            let ended = board.withLock { board -> Bool in
                guard let job = board.jobs[id], !job.isEnded else { return true }
                board.waiters[id, default: []].append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// Refuses new jobs, cancels the running ones (each device told to abort) and waits until they have ended.
    ///
    /// - Returns: How many jobs were running.
    @discardableResult
    func stop() async -> Int {
        let tasks = board.withLock { board in
            board.isAccepting = false
            return Array(board.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        return tasks.count
    }
}
