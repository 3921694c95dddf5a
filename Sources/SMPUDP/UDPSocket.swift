package import DeviceLink

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket: the one file of this module that calls the C library's socket functions.
package final class UDPSocket: Sendable {
    /// The descriptor; closed once, by ``close()``.
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A resolved address.
    package struct Address: Sendable {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32

        /// The address as `HOST:PORT`, `[ADDR]:PORT` for IPv6.
        package var description: String {
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
            var copy = storage
            let status = withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getnameinfo(
                        $0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                        NI_NUMERICHOST | NI_NUMERICSERV)
                }
            }
            guard status == 0 else { return "?" }
            let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return family == AF_INET6 ? "[\(hostText)]:\(port)" : "\(hostText):\(port)"
        }

        /// The port.
        package var port: UInt16 {
            var copy = storage
            return withUnsafePointer(to: &copy) { pointer in
                if family == AF_INET6 {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
            }
        }
    }

    /// Resolves `endpoint` (a numeric address, or a name through the system's resolver).
    ///
    /// - Parameter endpoint: The endpoint.
    /// - Returns: Its first datagram address.
    /// - Throws: `LinkError` (`deviceNotFound`) for a name that does not resolve.
    package static func resolve(_ endpoint: UDPEndpoint) throws(LinkError) -> Address {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let first = list, let address = first.pointee.ai_addr else {
            let reason = String(cString: gai_strerror(status))
            throw LinkError(.deviceNotFound, "udp \(endpoint): cannot resolve '\(endpoint.host)': \(reason)")
        }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(
                from: UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: Int(first.pointee.ai_addrlen)))
        }
        return Address(storage: storage, length: first.pointee.ai_addrlen, family: first.pointee.ai_family)
    }

    /// A socket whose datagrams go to, and come only from, `address`.
    ///
    /// - Parameter address: The peer.
    /// - Returns: The socket.
    /// - Throws: `LinkError` (`unavailable`) when the system refuses a socket.
    package static func connected(to address: Address) throws(LinkError) -> UDPSocket {
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw LinkError(.unavailable, "udp socket: \(errorText(errno))") }
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, address.length) }
        }
        guard status == 0 else {
            let reason = errorText(errno)
            Glibc.close(descriptor)
            throw LinkError(.unavailable, "udp \(address.description): \(reason)")
        }
        return UDPSocket(descriptor: descriptor)
    }

    /// A socket bound to `host` and `port` (0: a port the system picks), to serve on.
    ///
    /// - Parameters:
    ///   - host: The local address.
    ///   - port: The port.
    /// - Returns: The socket.
    /// - Throws: `LinkError` (`unavailable`) when the address cannot be bound (in use, not local).
    package static func bound(host: String, port: UInt16) throws(LinkError) -> UDPSocket {
        let address = try resolve(UDPEndpoint(host: host, port: port))
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw LinkError(.unavailable, "udp socket: \(errorText(errno))") }
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, address.length) }
        }
        guard status == 0 else {
            let reason = errorText(errno)
            Glibc.close(descriptor)
            throw LinkError(.unavailable, "udp bind \(address.description): \(reason)")
        }
        return UDPSocket(descriptor: descriptor)
    }

    /// The local address the socket is bound to.
    package var localAddress: Address {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Address(storage: storage, length: length, family: Int32(storage.ss_family))
    }

    /// Sends one datagram to the connected peer.
    ///
    /// - Parameter bytes: The datagram.
    /// - Returns: `nil`, or the error's text (a refused port after an ICMP message, a full buffer).
    package func send(_ bytes: [UInt8]) -> String? {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return sent < 0 ? Self.errorText(errno) : nil
    }

    /// Sends one datagram to `address`.
    ///
    /// - Parameters:
    ///   - bytes: The datagram.
    ///   - address: Where to.
    package func send(_ bytes: [UInt8], to address: Address) {
        var storage = address.storage
        _ = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                bytes.withUnsafeBytes {
                    sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, address.length)
                }
            }
        }
    }

    /// What a receive found.
    package enum Received: Sendable {
        /// A datagram and where it came from.
        case datagram([UInt8], from: Address)
        /// Nothing within the wait.
        case nothing
        /// The peer's port refused an earlier datagram (ICMP port unreachable on a connected socket).
        case refused
        /// The socket was shut down.
        case closed
    }

    /// Waits up to `milliseconds` (−1: for ever) for one datagram.
    ///
    /// - Parameter milliseconds: The longest wait.
    /// - Returns: What arrived.
    package func receive(waitingMilliseconds milliseconds: Int32) -> Received {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready == 0 || (ready < 0 && errno == EINTR) { return .nothing }
        if ready < 0 { return .closed }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                }
            }
        }
        if count < 0 {
            switch errno {
            case EAGAIN, EINTR: return .nothing
            case ECONNREFUSED: return .refused
            default: return .closed
            }
        }
        if count == 0, poller.revents & Int16(POLLHUP) != 0 { return .closed }
        let address = Address(storage: storage, length: length, family: Int32(storage.ss_family))
        return .datagram(Array(buffer.prefix(count)), from: address)
    }

    /// Wakes a thread waiting in ``receive(waitingMilliseconds:)`` (it sees `.closed`), without freeing the descriptor.
    package func shutDown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the descriptor; call once, after every user of the socket is done.
    package func close() {
        Glibc.close(descriptor)
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

extension UDPSocket {
    /// Waits up to `milliseconds` for any of `sockets` to have a datagram.
    ///
    /// - Parameters:
    ///   - sockets: The sockets.
    ///   - milliseconds: The longest wait.
    /// - Returns: The indices of the sockets that can be read.
    package static func readable(_ sockets: [UDPSocket], waitingMilliseconds milliseconds: Int32) -> [Int] {
        var pollers = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&pollers, nfds_t(pollers.count), milliseconds)
        guard ready > 0 else { return [] }
        return pollers.indices.filter { pollers[$0].revents != 0 }
    }
}
