// The configuration (`ReplayConfig`, `ConfigLoader`, `ConfigError`, `UsageError`) and the report
// (`RunReport`, `ExitStatus`, the report page, the run history) are modules below the run;
// re-exported so that `import ReplayKit` keeps reaching them: a run is started with a loaded
// configuration and ends with a report.
@_exported import ReplayConfiguration
@_exported import RunReporting
