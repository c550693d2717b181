// The delivery engine (events, batches, the status table, the transports) is the module below the
// client; re-exported, with the stop request and the file-system seam of SystemIO, so that
// `import MetaRouter` reaches everything an app uses (the client's `run(stop:)`, the disk queue's
// and identity store's `fileSystem:`, the engine and its configuration).
@_exported import MetaRouterDelivery
@_exported import SystemIO
