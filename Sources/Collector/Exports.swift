// `CollectorServer.stats()` returns the stats type both servers share, which lives in
// IngestionChecks (a module of this library that users do not import): re-exported so that
// `import Collector` is enough to name it.
@_exported import struct IngestionChecks.CollectorStats
