import Collector
import Testing

/// Which store `--store FILE` opens.
@Suite struct StoreChoiceTests {
    @Test(arguments: [
        ("/tmp/a.sqlite", CollectorStore.sqlite("/tmp/a.sqlite")),
        ("/tmp/a.DB", CollectorStore.sqlite("/tmp/a.DB")),
        ("/tmp/a.ndjson", CollectorStore.ndjson("/tmp/a.ndjson")),
    ])
    func storeChoiceByExtension(path: String, store: CollectorStore) {
        #expect(CollectorStore.forPath(path) == store)
    }
}
