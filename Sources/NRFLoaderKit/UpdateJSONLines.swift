/// The JSON Lines `nrfloader upload --json` prints for one update, event by event: what a program that relays an
/// update (a server's event stream, a log) emits to show exactly what the command line shows.
///
/// Every event becomes its ``UpdateEvent/jsonValue`` object, except that transfer progress is thinned to at most one
/// object each ``progressInterval`` (a phase change always shows the progress it starts from), and the result
/// object carries `"event": "result"`. A failed update ends with ``errorObject(message:exitStatus:)`` instead.
///
/// ```swift
/// var lines = UpdateJSONLines()
/// let clock = ContinuousClock()
/// _ = try await update.run { event in
///     for object in lines.objects(for: event, at: clock.now) { print(object.text) }
/// }
/// ```
public struct UpdateJSONLines: Sendable {
    /// The shortest time between two thinned progress objects: 10 per second at most.
    public static let progressInterval = Duration.milliseconds(100)

    private var lastProgress: ContinuousClock.Instant?

    /// A renderer that has shown no progress yet.
    public init() {}

    /// The objects `event` prints as, in order: none, one or two.
    ///
    /// - Parameters:
    ///   - event: The update's event.
    ///   - now: When it happened, for thinning progress.
    /// - Returns: The objects, each one line of JSON once printed with ``JSONValue/text``.
    public mutating func objects(for event: UpdateEvent, at now: ContinuousClock.Instant) -> [JSONValue] {
        switch event {
        case .begin, .log, .link:
            return [event.jsonValue]
        case .phase(let progress):
            lastProgress = now
            return [event.jsonValue, UpdateEvent.progress(progress).jsonValue]
        case .progress(let progress):
            // Legacy serial DFU reports acknowledged bytes each 10 %: every one is shown.
            if progress.isMilestone { return [event.jsonValue] }
            if let lastProgress, lastProgress.duration(to: now) < Self.progressInterval { return [] }
            lastProgress = now
            return [event.jsonValue]
        case .result:
            guard case .object(var members) = event.jsonValue else { return [event.jsonValue] }
            members["event"] = .string("result")
            return [.object(members)]
        }
    }

    /// The object that ends the lines of a failed command: `{"event":"error","exit_status":…,"message":…}`.
    ///
    /// - Parameters:
    ///   - message: The error's one-line message, unescaped (JSON escapes it).
    ///   - exitStatus: The exit status the command exits with.
    /// - Returns: The object, with the `schema` member.
    public static func errorObject(message: String, exitStatus: Int32) -> JSONValue {
        .object([
            "schema": .int(JSONValue.schemaVersion), "event": .string("error"), "message": .string(message),
            "exit_status": .int(Int(exitStatus)),
        ])
    }
}
