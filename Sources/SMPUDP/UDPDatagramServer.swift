package import DeviceLink

/// Serves request datagrams on several bound sockets from one thread: each datagram is handed to a handler with
/// the socket's index and the time, and its answer (if any) goes back to the sender.
package struct UDPDatagramServer: Sendable {
    /// The sockets, one per simulated device.
    package let sockets: [UDPSocket]

    /// Binds `count` sockets on `host`, at `port`, `port + 1`, … (or, for port 0, at ports the system picks).
    ///
    /// - Parameters:
    ///   - host: The local address (`127.0.0.1`, `::1`).
    ///   - port: The first port, or 0.
    ///   - count: How many sockets.
    /// - Throws: `LinkError` when a port cannot be bound; the ones bound before are closed.
    package init(host: String, port: UInt16, count: Int) throws(LinkError) {
        var sockets: [UDPSocket] = []
        for index in 0..<count {
            let next = port == 0 ? 0 : Int(port) + index
            guard next <= Int(UInt16.max) else {
                for socket in sockets { socket.close() }
                throw LinkError(.unavailable, "udp: \(count) ports from \(port) pass 65535")
            }
            do { sockets.append(try UDPSocket.bound(host: host, port: UInt16(next))) } catch {
                for socket in sockets { socket.close() }
                throw error
            }
        }
        self.sockets = sockets
    }

    /// The addresses served, `HOST:PORT` each.
    package var addresses: [UDPSocket.Address] { sockets.map(\.localAddress) }

    /// Serves until `shouldStop` says so (asked at least every 20 ms), then closes the sockets.
    ///
    /// - Parameters:
    ///   - shouldStop: Whether to stop.
    ///   - handle: A datagram for socket `index` at a time since the start; returns the answer, if any.
    ///   - tick: Called with the time at least every 20 ms (pending reboots).
    package func run(
        until shouldStop: () -> Bool, handle: (_ index: Int, _ datagram: [UInt8], _ now: Duration) -> [UInt8]?,
        tick: (Duration) -> Void
    ) {
        let clock = ContinuousClock()
        let start = clock.now
        defer { for socket in sockets { socket.close() } }
        while !shouldStop() {
            let ready = UDPSocket.readable(sockets, waitingMilliseconds: 20)
            tick(start.duration(to: clock.now))
            for index in ready {
                while case .datagram(let bytes, let sender) = sockets[index].receive(waitingMilliseconds: 0) {
                    if let answer = handle(index, bytes, start.duration(to: clock.now)) {
                        sockets[index].send(answer, to: sender)
                    }
                }
            }
        }
    }
}
