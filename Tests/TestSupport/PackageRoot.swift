import Foundation

/// The package's root directory (the one holding Package.swift), found from this file's path,
/// wherever under Tests/ the calling test file sits.
package let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while url.path != "/" {
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        url.deleteLastPathComponent()
    }
    fatalError("no Package.swift above \(#filePath)")
}()
