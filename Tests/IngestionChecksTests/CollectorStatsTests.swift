import Foundation
import IngestionChecks
import Testing

/// The `/stats` body both servers send: its exact text is what scripts and benchmarks read.
@Suite struct CollectorStatsTests {
    @Test func jsonTextIsCompactWithSortedKeys() throws {
        let stats = CollectorStats(
            requests: 5, responses: ["429": 1, "200": 3, "401": 1], events: 250, unique: 249, duplicates: 1,
            invalid: 2, bytes: 51_234, maxBatchEvents: 100, resets: 1)
        let expected =
            "{\"bytes\":51234,\"duplicates\":1,\"events\":250,\"invalid\":2,\"max_batch_events\":100,"
            + "\"requests\":5,\"resets\":1,\"responses\":{\"200\":3,\"401\":1,\"429\":1},\"unique\":249}"
        #expect(stats.jsonText == expected)
        #expect(try JSONDecoder().decode(CollectorStats.self, from: Data(stats.jsonText.utf8)) == stats)
    }

    @Test func emptyStatsHaveEveryKey() {
        #expect(
            CollectorStats().jsonText
                == "{\"bytes\":0,\"duplicates\":0,\"events\":0,\"invalid\":0,\"max_batch_events\":0,\"requests\":0,"
                + "\"resets\":0,\"responses\":{},\"unique\":0}")
    }
}
