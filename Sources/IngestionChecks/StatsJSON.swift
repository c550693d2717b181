/// The body of `GET /stats`, the same keys from both servers: compact JSON with sorted keys.
package enum StatsJSON {
    /// The JSON text of these counters.
    package static func text(
        bytes: Int, duplicates: Int, events: Int, invalid: Int, maxBatchEvents: Int, requests: Int, resets: Int,
        responses: [String: Int], unique: Int
    ) -> String {
        let codes = responses.keys.sorted().map { "\"\($0)\":\(responses[$0] ?? 0)" }.joined(separator: ",")
        return "{\"bytes\":\(bytes),\"duplicates\":\(duplicates),\"events\":\(events),\"invalid\":\(invalid),"
            + "\"max_batch_events\":\(maxBatchEvents),\"requests\":\(requests),\"resets\":\(resets),"
            + "\"responses\":{\(codes)},\"unique\":\(unique)}"
    }
}
