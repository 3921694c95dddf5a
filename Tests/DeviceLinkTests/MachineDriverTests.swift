import DeviceLink
import Synchronization
import Testing

/// The one driver loop, with a scripted machine on a scripted link: what it performs, what it tells the machine, and
/// when.
@Suite struct MachineDriverTests {
    typealias Action = ScriptedMachine.Action

    /// What a run gave back: its outcome, the machine's journal, the link and the reports.
    struct Run {
        var outcome: DriverOutcome<String, String>
        var journal: Journal
        var link: ScriptedLink
        var reports: [String]
        var logs: [String]

        var result: String? {
            if case .completed(let result) = outcome { result } else { nil }
        }

        var failure: (String, deviceWasReached: Bool)? {
            if case .failed(let failure, let reached) = outcome { (failure, reached) } else { nil }
        }
    }

    static func run(
        _ script: [String: [Action]], link: ScriptedLink = ScriptedLink(), connectionFallback: Duration = .seconds(30)
    ) async -> Run {
        let journal = Journal()
        let reports = Mutex<[String]>([])
        let logs = Mutex<[String]>([])
        let driver = MachineDriver(link: link, connectionFallback: connectionFallback)
        let outcome = await driver.run(ScriptedMachine(journal: journal, script: script)) { action, _ in
            if case .report(let text) = action { reports.withLock { $0.append(text) } }
        } log: { line in
            logs.withLock { $0.append(line) }
        }
        return Run(
            outcome: outcome, journal: journal, link: link, reports: reports.withLock { $0 },
            logs: logs.withLock { $0 })
    }

    @Test("a list's operations run in order, each completion goes back to the machine, and finishing disconnects")
    func operationsInOrder() async {
        let run = await Self.run([
            "start": [.perform(.connect), .perform(.write(1)), .report("sent"), .perform(.write(2))],
            "completed done write(2)": [.finish("ok")],
        ])
        #expect(run.result == "ok")
        #expect(run.link.performed == [.connect, .write(1), .write(2)])
        #expect(
            run.journal.inputs == [
                "start", "completed connected", "completed done write(1)", "completed done write(2)",
            ])
        #expect(run.reports == ["sent"])
        #expect(run.link.disconnects == 1)
    }

    @Test("after a lost link the rest of the list's link operations are skipped; its timers and reports still count")
    func linkLossSkipsOperations() async {
        let link = ScriptedLink(failures: [.write(1): .linkLost("gone")])
        let run = await Self.run(
            [
                "start": [
                    .perform(.write(1)), .perform(.write(2)), .startTimer(.response, deadline: .seconds(5)),
                    .report("after"), .perform(.write(3)),
                ],
                "timer response": [.fail("no answer")],
            ], link: link)
        #expect(run.link.performed == [.write(1)])
        #expect(run.journal.inputs == ["start", "failed linkLost during write(1)", "timer response"])
        #expect(run.reports == ["after"])
        #expect(run.journal.time(of: "timer response") == .seconds(5))
        #expect(run.failure?.0 == "no answer")
        #expect(run.link.disconnects == 1)
    }

    @Test(
        "any other failure drops the rest of the list, a lost link during a connection too: the machine decides anew",
        arguments: [
            (ScriptedOperation.write(1), LinkError.rejected("ATT error 0x80")),
            (.write(1), .timedOut("no write response")),
            (.connect, .linkLost("dropped while connecting")),
        ])
    func otherFailureDropsTheList(operation: ScriptedOperation, error: LinkError) async {
        let link = ScriptedLink(failures: [operation: error])
        let run = await Self.run(
            [
                "start": [.perform(operation), .perform(.write(2)), .report("dropped")],
                "failed \(error.kind) during \(operation)": [.fail("gave up")],
            ], link: link)
        #expect(run.link.performed == [operation])
        #expect(run.reports.isEmpty)
        #expect(run.failure?.0 == "gave up")
        #expect(run.failure?.deviceWasReached == false)
        #expect(run.link.disconnects == 1)
    }

    @Test("the connection deadline: a connection timer started later in the same list, else the running one")
    func connectionDeadline() async {
        let later = await Self.run([
            "start": [.perform(.connect), .startTimer(.connection, deadline: .seconds(7))],
            "completed connected": [.finish("ok")],
        ])
        #expect(later.link.connectionDeadlines == [.seconds(7)])

        let earlier = await Self.run([
            "start": [.startTimer(.connection, deadline: .seconds(9)), .perform(.connect)],
            "completed connected": [.finish("ok")],
        ])
        #expect(earlier.link.connectionDeadlines == [.seconds(9)])

        let cancelledTimer = await Self.run(
            [
                "start": [
                    .startTimer(.connection, deadline: .seconds(9)), .cancelTimer(.connection), .perform(.connect),
                ],
                "completed connected": [.finish("ok")],
            ], connectionFallback: .seconds(12))
        #expect(cancelledTimer.link.connectionDeadlines == [.seconds(12)])
    }

    @Test("a timer fires at its deadline on the link's clock; a cancelled one never fires; a restarted one moves")
    func timers() async {
        let run = await Self.run([
            "start": [
                .startTimer(.connection, deadline: .seconds(2)), .cancelTimer(.connection),
                .startTimer(.response, deadline: .seconds(1)), .startTimer(.response, deadline: .seconds(3)),
            ],
            "timer response": [.finish("fired")],
        ])
        #expect(run.result == "fired")
        #expect(run.journal.inputs == ["start", "timer response"])
        #expect(run.journal.time(of: "timer response") == .seconds(3))
    }

    @Test("the device's messages and the loss of the link reach the machine; the link's log lines go to the caller")
    func events() async {
        let link = ScriptedLink(events: [.message("hello"), .log("console: booting"), .disconnected(reason: "reset")])
        let run = await Self.run(["link lost": [.fail("lost")]], link: link)
        #expect(run.journal.inputs == ["start", "received hello", "link lost"])
        #expect(run.logs == ["console: booting"])
        #expect(run.failure?.0 == "lost")
    }

    @Test("a link that breaks while waiting is a failure during no operation")
    func brokenWait() async {
        final class BrokenLink: DriverLink, Sendable {
            let clock = VirtualClock()
            func perform(_ operation: ScriptedOperation, connectionDeadline: VirtualClock.Instant) throws(LinkError)
                -> String?
            { nil }
            func disconnect() async {}
            func nextEvent(until deadline: VirtualClock.Instant) throws(LinkError) -> LinkEvent<String>? {
                throw .failed("the bus went away")
            }
        }
        let journal = Journal()
        let outcome = await MachineDriver(link: BrokenLink(), connectionFallback: .seconds(1)).run(
            ScriptedMachine(journal: journal, script: ["failed failed during wait": [.fail("broken")]])
        ) { _, _ in
        } log: { _ in
        }
        guard case .failed(let failure, _) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure == "broken")
        #expect(journal.inputs == ["start", "failed failed during wait"])
    }

    @Test("cancelling the task is the machine's cancel; its clean-up still goes out, then the run ends as cancelled")
    func cancellationWhileWaiting() async {
        let link = ScriptedLink()
        let journal = Journal()
        let task = Task {
            await MachineDriver(link: link, connectionFallback: .seconds(30)).run(
                ScriptedMachine(
                    journal: journal,
                    script: [
                        "start": [.startTimer(.response, deadline: .seconds(3600))],
                        "cancel": [.perform(.write(99))],
                    ])
            ) { _, _ in
            } log: { _ in
            }
        }
        task.cancel()
        let outcome = await task.value
        guard case .failed(let failure, _) = outcome else {
            Issue.record("expected the cancelled failure, got \(outcome)")
            return
        }
        #expect(failure == "cancelled")
        #expect(journal.inputs.filter { $0 == "cancel" }.count == 1)
        #expect(link.performed.last == .write(99))
        #expect(journal.inputs.last == "completed done write(99)")
        #expect(link.disconnects == 1)
    }

    @Test("cancelling a connection attempt is the user's interrupt, not a failure to connect")
    func cancellationDuringConnection() async throws {
        let link = ScriptedLink(connectionWaitsForCancellation: true)
        let journal = Journal()
        let task = Task {
            await MachineDriver(link: link, connectionFallback: .seconds(30)).run(
                ScriptedMachine(
                    journal: journal,
                    script: ["start": [.perform(.connect), .perform(.write(1))], "cancel": [.fail("interrupted")]])
            ) { _, _ in
            } log: { _ in
            }
        }
        for _ in 0..<1000 where link.performed.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let outcome = await task.value
        guard case .failed(let failure, _) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure == "interrupted")
        #expect(journal.inputs == ["start", "cancel"])
        #expect(link.performed == [.connect])
    }
}
