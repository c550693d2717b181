// The stop request and the file-system seam live in SystemIO, below the engine and the client;
// re-exported so that `import MetaRouter` keeps them in reach (the client's `run(stop:)`, the
// disk queue's and identity store's `fileSystem:`).
@_exported import SystemIO
