import Hummingbird

extension StationResponder {
    /// The job's `upload --json` lines as server-sent events, ending with the job.
    ///
    /// Each line is one `data:` field, its index the `id:`. An `EventSource` that reconnects after the end gets 204,
    /// which stops it.
    func events(of id: Int, request: Request) throws -> Response {
        guard let followed = jobs.follow(id) else { throw Self.unknownJob("\(id)") }
        let skip = request.headers.value(named: "last-event-id").flatMap(Int.init).map { $0 + 1 } ?? 0
        if followed.later == nil && skip >= followed.lines.count {
            followed.unsubscribe()
            return Response(status: .noContent)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { followed.unsubscribe() }
                var index = 0
                func frame(_ line: String) -> ByteBuffer {
                    defer { index += 1 }
                    return ByteBuffer(string: "id: \(index)\ndata: \(line)\n\n")
                }
                var buffers: [ByteBuffer] = []
                for line in followed.lines {
                    let buffer = frame(line)
                    if index > skip { buffers.append(buffer) }
                }
                try await writer.write(contentsOf: buffers)
                if let later = followed.later {
                    for await line in later {
                        let buffer = frame(line)
                        if index > skip { try await writer.write(buffer) }
                    }
                }
                try await writer.finish(nil)
            })
    }
}
