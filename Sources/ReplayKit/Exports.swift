// The configuration (`ReplayConfig`, `ConfigLoader`, `ConfigError`, `UsageError`) is the module
// below the run; re-exported so that `import ReplayKit` keeps reaching it: a run is started with
// a loaded configuration.
@_exported import ReplayConfiguration
