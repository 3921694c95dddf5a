#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client over a loopback socket, for testing the station the way a program would: one request
/// per connection (`Connection: close`), the answer read to the end, chunked bodies decoded.
struct HTTPTestClient {
    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int

    func get(_ path: String, headers: [(String, String)] = []) throws -> Answer {
        try request("GET", path, headers: headers)
    }

    func post(_ path: String, body: [UInt8] = [], headers: [(String, String)] = []) throws -> Answer {
        try request("POST", path, body: body, headers: headers)
    }

    func post(_ path: String, json: String, headers: [(String, String)] = []) throws -> Answer {
        try request(
            "POST", path, body: Array(json.utf8), headers: headers + [("Content-Type", "application/json")])
    }

    func request(_ method: String, _ path: String, body: [UInt8] = [], headers: [(String, String)] = []) throws
        -> Answer
    {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port) failed") }
        var head = "\(method) \(path) HTTP/1.1\r\nConnection: close\r\n"
        if !headers.contains(where: { $0.0 == "Host" }) { head += "Host: 127.0.0.1:\(port)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body, on: socket)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return try Self.parse(received)
    }

    private func send(_ bytes: [UInt8], on socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            // The server may answer (413) and close before it has read the whole body.
            if sent <= 0 { return }
            offset += sent
        }
    }

    private static func parse(_ bytes: [UInt8]) throws -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no HTTP head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { throw Failure(description: "bad status line") }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var body = Array(bytes[(end + 4)...])
        let isChunked = headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1 == "chunked" }
        if isChunked { body = try dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16)
            else { throw Failure(description: "bad chunk") }
            if size == 0 { break }
            output += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return output
    }
}

/// Files of the repository the tests send as a user would.
enum EmbeddedTestFile {
    /// `Resources/firmware/blinky-pca10040.hex`.
    static var blinkyHex: [UInt8]? { repositoryFile("Resources/firmware/blinky-pca10040.hex") }

    /// A file by its path in the repository.
    static func repositoryFile(_ relativePath: String) -> [UInt8]? {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        return read("/" + root + "/" + relativePath)
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }
}
