import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `nrfloader serve` on a free loopback port, and the HTTP calls a program makes to it.
struct ServeProcess {
    let child: ProcessRunner.Running
    let base: String

    /// A free loopback port: bound, read and released (the server binds it a moment later).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.featureUnsupported) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `nrfloader serve ARGUMENTS` on a free loopback port (serial ports off) and waits until it answers.
    static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServeProcess {
        let port = try ServeProcess.freePort()
        let child = ProcessRunner().start(
            TestPaths.nrfloader,
            ["serve", "--listen", "127.0.0.1:\(port)", "--json", "--no-serial"] + arguments, environment: environment)
        let server = ServeProcess(child: child, base: "http://127.0.0.1:\(port)")
        for _ in 0..<200 {
            if (try? await server.get("/api/catalog"))?.status == 200 { return server }
            try await Task.sleep(for: .milliseconds(50))
        }
        child.send(SIGKILL)
        _ = child.wait()
        throw CocoaError(.fileReadUnknown)
    }

    func get(_ path: String) async throws -> (status: Int, text: String) {
        try await send(URLRequest(url: try #require(URL(string: base + path))))
    }

    func post(_ path: String, body: Data, type: String) async throws -> (status: Int, text: String) {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue(type, forHTTPHeaderField: "Content-Type")
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, text: String) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func stop() -> ProcessResult {
        child.send(SIGTERM)
        return child.wait()
    }
}
