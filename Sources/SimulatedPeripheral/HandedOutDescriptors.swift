import DBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Duplicates of socket descriptors handed to libdbus in method replies (`AcquireWrite`, `AcquireNotify`), each
/// closed once libdbus has taken its own copy.
final class HandedOutDescriptors: Sendable {
    private struct State {
        /// Handed out in direct replies: closed by the next handler.
        var direct: [Int32] = []
        /// Handed out while a held call is answered late (see ``answerLate(_:on:_:)``).
        var late: [Int32]?
    }

    private let state = Mutex(State())

    init() {}

    /// A duplicate of `descriptor` for a reply.
    func handOut(_ descriptor: Int32) -> Int32 {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        state.withLock { state in
            if state.late != nil {
                state.late?.append(duplicate)
            } else {
                state.direct.append(duplicate)
            }
        }
        return duplicate
    }

    /// Closes the duplicates of earlier direct replies; every handler calls it first.
    ///
    /// A handler's reply is built right after it returns, before the connection thread runs the next handler.
    func closeDirect() {
        let descriptors = state.withLock { state in
            defer { state.direct.removeAll() }
            return state.direct
        }
        Self.close(descriptors)
    }

    /// Answers a call that was held, after its handler's thread moved on: `answer` makes the reply, which leaves
    /// through the connection's queue; the descriptors it handed out are closed once libdbus has built it (or at
    /// once, when the answer is deferred again).
    func answerLate(_ call: DBusMethodCall, on connection: BusConnection, _ answer: () -> DBusMethodReply) {
        state.withLock { $0.late = [] }
        let reply = answer()
        let late = state.withLock { state in
            defer { state.late = nil }
            return state.late ?? []
        }
        if case .deferred = reply {
            Self.close(late)
            return
        }
        connection.reply(toCall: call.id, with: reply) { Self.close(late) }
    }

    private static func close(_ descriptors: [Int32]) {
        for descriptor in descriptors where descriptor >= 0 { Glibc.close(descriptor) }
    }
}
